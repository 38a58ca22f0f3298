#!/bin/sh
# What libaccount.so must look like to be invisible in the program it is
# preloaded into: only libc as a dependency (no libstdc++, libgcc_s or
# libunwind to clash with the program's own), only the interposed functions
# exported, and no compiler-generated dynamic initializer (one would run after
# the program's first malloc and could reset state the shim already uses).
# Besides them, the versioned entry points of the in-test API (api/). And the
# identity, which every start writes, begins on the page where .bss begins
# (the page ld.so already zeroed), so a start with a short command line
# writes no page of .bss beyond it (atomics.h, ACCOUNT_IDENTITY_BSS).
# usage: shim_binary_test.sh LIBACCOUNT_SO
set -eu
so=$1
fail=0

needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
if [ "$needed" != "libc.so.6 " ]; then
  echo "FAIL: $so needs '$needed', expected only libc.so.6"
  fail=1
fi

expected="_Exit _Fork __memcpy_chk __memmove_chk __mempcpy_chk _exit aligned_alloc bcopy calloc
chroot clone execl execle execlp execv execve execveat execvp execvpe fexecve free malloc memalign memcpy
memmove mempcpy pipe2 posix_memalign prctl pvalloc quick_exit realloc reallocarray seteuid setresuid
setreuid setuid syscall valloc wmemcpy wmemmove
account_shim_largest_stack_v1 account_shim_peak_reset_v1 account_shim_snapshot_v1"
exported=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
want=$(echo $expected | tr ' ' '\n' | sort | tr '\n' ' ')
if [ "$exported" != "$want" ]; then
  echo "FAIL: exported symbols differ"
  echo "  exported: $exported"
  echo "  expected: $want"
  fail=1
fi

dynamic_init=$(nm "$so" | grep -c '_GLOBAL__sub_I' || true)
if [ "$dynamic_init" != 0 ]; then
  echo "FAIL: $so has $dynamic_init dynamic initializer(s):"
  nm "$so" | grep '_GLOBAL__sub_I'
  fail=1
fi

bss=$(readelf -SW "$so" | sed -n 's/.*] \.bss  *NOBITS  *\([0-9a-f]*\) .*/\1/p')
identity=$(nm "$so" | awk '$3 == "_ZN7account10g_identityE" {print $1}')
if [ -z "$bss" ] || [ -z "$identity" ]; then
  echo "FAIL: no .bss ('$bss') or g_identity ('$identity') in $so"
  fail=1
elif [ $((0x$identity / 4096)) != $((0x$bss / 4096)) ] || [ $((4096 - 0x$identity % 4096)) -lt 256 ]; then
  echo "FAIL: g_identity at 0x$identity, not within the first page of .bss (0x$bss) with 256 bytes to spare"
  echo "  the small .bss variables before it:"
  nm -S -n "$so" | awk -v lo="$bss" -v hi="$identity" '$3 ~ /^[bB]$/ && $1 >= lo && $1 < hi' | sort -k2 | tail -5
  fail=1
fi

# A start touches the shim's text on as few pages as it can: none beyond its
# start and exit paths. libc_nonshared.a's at_quick_exit and pthread_atfork
# (linked into the shim, at the end of its text) and the empty _fini that ld.so
# calls at exit (DT_FINI) each cost a page fault a start there (lifecycle.cc,
# CMakeLists.txt).
tail_code=$(nm --defined-only "$so" | awk '$3 == "at_quick_exit" || $3 == "pthread_atfork" || $3 == "__pthread_atfork" {print $3}' | tr '\n' ' ')
if [ -n "$tail_code" ] || readelf -d "$so" | grep -q '(FINI)'; then
  echo "FAIL: $so defines '$tail_code' or has a DT_FINI: a page fault a start"
  fail=1
fi

[ $fail = 0 ] && echo "ok: libc only, $(echo $want | wc -w) exported symbols, no dynamic initializers"
exit $fail
