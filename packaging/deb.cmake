# The Debian package: `cpack -G DEB` in the build directory (docs/packaging.md).
# Installs to /usr with the shim in /usr/lib/<multiarch>/, where account looks
# first (cli/shim_location.cc); Depends computed by dpkg-shlibdeps from the
# binaries, plus SQLite, which account dlopens for its stores; libunwind and
# libpq only recommended, since they are dlopened for backtraces and PostgreSQL
# stores and account runs without them.
set(CPACK_PACKAGE_NAME account)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "account")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "per-operation resource accounting for Linux programs")
set(CPACK_PACKAGE_DESCRIPTION "An LD_PRELOAD shim (libaccount.so) that counts malloc and memcpy calls
and bytes exactly and samples the peak size and resident size of every process
of a command, and the account tool that runs commands under it, prints the
per-operation table, compares builds side by side and watches running
processes. Also: manual pages, bash completion, and Monotone's and Gerrit's
perf-tests on git (/usr/share/account/perf-tests).")
set(ACCOUNT_DEB_MAINTAINER "account maintainers <account@localhost>" CACHE STRING
  "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${ACCOUNT_DEB_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)

# The package that holds a library account dlopens, asked of dpkg (DEFAULT when
# dpkg does not know the file).
function(account_owning_package file default out)
  set(package ${default})
  file(REAL_PATH "${file}" real)
  find_program(DPKG_QUERY dpkg-query)
  if(DPKG_QUERY)
    execute_process(COMMAND ${DPKG_QUERY} -S ${real}
      OUTPUT_VARIABLE owner RESULT_VARIABLE failed ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT failed AND owner MATCHES "^([^:,]+)")
      set(package ${CMAKE_MATCH_1})
    endif()
  endif()
  set(${out} ${package} PARENT_SCOPE)
endfunction()
# Libraries account dlopens when used, so dpkg-shlibdeps cannot see them:
# SQLite (every store) is a dependency; libunwind (backtraces) and libpq
# (PostgreSQL stores) are recommended.
account_owning_package("${ACCOUNT_SQLITE_FILE}" libsqlite3-0 ACCOUNT_SQLITE_PACKAGE)
account_owning_package("${ACCOUNT_LIBUNWIND_FILE}" libunwind8 ACCOUNT_LIBUNWIND_PACKAGE)
account_owning_package("${ACCOUNT_LIBPQ_FILE}" libpq5 ACCOUNT_LIBPQ_PACKAGE)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${ACCOUNT_SQLITE_PACKAGE}")
# addr2line (binutils) symbolizes `account report --backtraces`; git runs the perf-tests.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "${ACCOUNT_LIBUNWIND_PACKAGE}, ${ACCOUNT_LIBPQ_PACKAGE}, binutils")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "git")

# The shim goes to /usr/lib/<multiarch> whatever prefix the build directory was
# configured for (a /usr/local build installs it to lib/): fix-multiarch.cmake
# moves it in the staging tree before the package is made.
# (CPack passes on only CPACK_* variables.)
set(CPACK_ACCOUNT_DEB_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE})
set(CPACK_ACCOUNT_CONFIGURED_LIBDIR ${CMAKE_INSTALL_LIBDIR})
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/fix-multiarch.cmake)

include(CPack)
