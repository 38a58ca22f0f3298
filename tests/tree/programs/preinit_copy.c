// preinit_copy: copies 4096 bytes with memcpy from the executable's
// .preinit_array, which runs before libc's initializer has set environ (as
// ASan's __asan_init does), then allocates 1000 bytes in main. Prints nothing.
#include <stdlib.h>
#include <string.h>

static char from[4096], to[4096];

static void copy_before_libc(int argc, char** argv, char** envp) {
  (void)argc, (void)argv, (void)envp;
  memcpy(to, from, sizeof to);
}

__attribute__((section(".preinit_array"), used)) static void (*preinit)(int, char**, char**) =
    copy_before_libc;

int main(void) {
  free(malloc(1000));
  return to[0];
}
