# CPACK_PRE_BUILD_SCRIPTS of the .deb (deb.cmake): in the staging tree, moves
# libaccount.so from the libdir the build was configured with (lib/ for a
# /usr/local build) to Debian's /usr/lib/<multiarch>/, where the packaged
# account finds it (cli/shim_location.cc). Nothing to do for a build
# configured with -DCMAKE_INSTALL_PREFIX=/usr.
set(usr "${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")
set(from "${usr}/${CPACK_ACCOUNT_CONFIGURED_LIBDIR}/libaccount.so")
set(to "${usr}/${CPACK_ACCOUNT_DEB_LIBDIR}/libaccount.so")
if(NOT EXISTS "${to}")
  if(NOT EXISTS "${from}")
    message(FATAL_ERROR "fix-multiarch.cmake: no libaccount.so at ${from}")
  endif()
  get_filename_component(dir "${to}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(RENAME "${from}" "${to}")
  message(STATUS "libaccount.so moved to /usr/${CPACK_ACCOUNT_DEB_LIBDIR} in the package")
endif()

# account.pc names the shim where a prefix install keeps it; the package moves it.
set(pc "${usr}/${CPACK_ACCOUNT_CONFIGURED_LIBDIR}/pkgconfig/account.pc")
if(EXISTS "${pc}" AND NOT CPACK_ACCOUNT_CONFIGURED_LIBDIR STREQUAL CPACK_ACCOUNT_DEB_LIBDIR)
  file(READ "${pc}" text)
  string(REPLACE "shim=\${libdir}/libaccount.so" "shim=\${prefix}/${CPACK_ACCOUNT_DEB_LIBDIR}/libaccount.so"
    text "${text}")
  file(WRITE "${pc}" "${text}")
endif()
