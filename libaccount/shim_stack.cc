#include "shim_stack.h"

#include <signal.h>
#include <ucontext.h>

#include "atomics.h"

namespace account {

namespace {

// Untouched, and so free of pages, until a step runs on it.
alignas(16) ACCOUNT_LARGE_BSS char g_shim_stack[64 * 1024];
// Not on the program's stack either; among the large arrays, off the pages a
// start writes (1 KiB each: before the identity they pushed it onto a page of
// its own).
ACCOUNT_LARGE_BSS ucontext_t g_program_context;
ACCOUNT_LARGE_BSS ucontext_t g_shim_context;
void (*g_step)(void*);
void* g_step_arg;

void run_step() {
  g_step(g_step_arg);
}

}  // namespace

void on_shim_stack(void (*step)(void*), void* arg) {
  g_step = step;
  g_step_arg = arg;
  getcontext(&g_shim_context);
  g_shim_context.uc_stack.ss_sp = g_shim_stack;
  g_shim_context.uc_stack.ss_size = sizeof g_shim_stack;
  g_shim_context.uc_link = &g_program_context;
  makecontext(&g_shim_context, run_step, 0);
  swapcontext(&g_program_context, &g_shim_context);
}

bool on_alternate_signal_stack() {
  stack_t now;
  return sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_ONSTACK);
}

}  // namespace account
