#!/bin/sh
# What libaccount.so must look like to be invisible in the program it is
# preloaded into: only libc as a dependency (no libstdc++, libgcc_s or
# libunwind to clash with the program's own), only the interposed functions
# exported, and no compiler-generated dynamic initializer (one would run after
# the program's first malloc and could reset state the shim already uses).
# Besides them, the versioned entry points of the in-test API (api/).
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
clone execl execle execlp execv execve execveat execvp execvpe fexecve free malloc memalign memcpy
memmove mempcpy pipe2 posix_memalign prctl pvalloc quick_exit realloc reallocarray syscall valloc wmemcpy
wmemmove
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

[ $fail = 0 ] && echo "ok: libc only, $(echo $want | wc -w) exported symbols, no dynamic initializers"
exit $fail
