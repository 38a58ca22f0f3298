// The seccomp filter of the sandbox tests: it kills the process on
// getrusage, prlimit64 and flock (system calls a program's end does not
// need, and the shim's end made) and allows every other.
#pragma once
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/syscall.h>

#define END_SANDBOX_KILL_ON(nr)                    \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS)

static struct sock_filter g_end_sandbox_filter[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    END_SANDBOX_KILL_ON(SYS_getrusage),
    END_SANDBOX_KILL_ON(SYS_prlimit64),
    END_SANDBOX_KILL_ON(SYS_flock),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

static inline struct sock_fprog end_sandbox_program(void) {
  struct sock_fprog program = {sizeof g_end_sandbox_filter / sizeof g_end_sandbox_filter[0],
                               g_end_sandbox_filter};
  return program;
}
