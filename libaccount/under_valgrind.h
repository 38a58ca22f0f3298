/// Whether the process runs on valgrind's synthetic CPU. Asked with valgrind's
/// client request RUNNING_ON_VALGRIND (request 0x1001), whose x86-64 form is
/// part of valgrind's documented client-request interface (valgrind.h): four
/// rotations of %rdi by 128 bits in all, then `xchg %rbx,%rbx`. A real CPU
/// runs them as no-ops and leaves the default, 0, in %rdx; valgrind's decoder
/// answers the request there. No system call; x86-64 only (false elsewhere).
#pragma once

#include <stdint.h>

namespace account {

inline bool under_valgrind() {
#if defined(__x86_64__)
  volatile uint64_t request[6] = {0x1001, 0, 0, 0, 0, 0};
  uint64_t answer;
  asm volatile(
      "rolq $3, %%rdi\n\trolq $13, %%rdi\n\t"
      "rolq $61, %%rdi\n\trolq $51, %%rdi\n\t"
      "xchgq %%rbx, %%rbx"
      : "=d"(answer)
      : "a"(&request[0]), "0"(uint64_t{0})
      : "cc", "memory");
  return answer != 0;
#else
  return false;
#endif
}

}  // namespace account
