// Prints the kernel's figures for this process at its end, having unmapped
// nothing itself:
//   vm_peak_kib=N vm_size_kib=M
// Without anything unmapped, the peak can exceed the current size only by
// what the process mapped and unmapped on its own: under the shim, by what the
// shim's start-up did.
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "say.h"

static long field_kib(const char* status, const char* name) {
  const char* at = strstr(status, name);
  return at ? atol(at + strlen(name)) : -1;
}

int main(void) {
  char status[8192];
  int fd = open("/proc/self/status", O_RDONLY);
  ssize_t n = fd >= 0 ? read(fd, status, sizeof status - 1) : -1;
  if (n <= 0) return 1;
  status[n] = '\0';
  close(fd);
  say("vm_peak_kib=%ld vm_size_kib=%ld\n", field_kib(status, "VmPeak:"),
      field_kib(status, "VmSize:"));
  return 0;
}
