/// The shim's own file, as ld.so of the next program will look for it.
///
/// A process whose next program cannot read the shim's file (it dropped root
/// and the shim lies under a directory only root enters, a chroot or a mount
/// namespace hid it) would start that program with ld.so's "ERROR: ld.so:
/// object ... from LD_PRELOAD cannot be preloaded ... ignored." on its stderr.
/// The exec, or the call that moved the root, takes the shim out of the
/// program's LD_PRELOAD instead: it starts without the shim, silently, and
/// account run counts it as a process without it.
#pragma once

#include <stddef.h>

#include "settings.h"

namespace account {

constexpr char kPreloadPrefix[] = "LD_PRELOAD=";
constexpr size_t kPreloadPrefixLength = sizeof kPreloadPrefix - 1;
/// Room for an LD_PRELOAD entry without the shim.
constexpr size_t kPreloadEntryCapacity = kPathCapacity + kPreloadPrefixLength;

/// The number of entries of an environment.
size_t env_entries(char* const* env);

/// True when `env`'s LD_PRELOAD names the shim by an absolute path that this
/// process cannot read now.
bool shim_out_of_reach_in(char* const* env);

/// `env` with its LD_PRELOAD entry replaced by `entry` (room for
/// kPreloadEntryCapacity), the same list without the shim, into `copy` (room
/// for env_entries(env) + 1); `env` itself if that does not fit.
char* const* env_without_shim(char* const* env, char** copy, char* entry);

/// The process's own environment loses the shim from its LD_PRELOAD when the
/// shim's file is out of its reach (after chroot: libc's own spawns, system()
/// and popen(), pass environ through no exec of the shim's). The entry is
/// replaced, never written in place (a program's putenv may have given a
/// read-only string).
void forget_shim_if_out_of_reach();

}  // namespace account

/// The environment an exec passes on, as `out`: `env`, or, when the shim is
/// out of reach, a copy on the caller's stack without it (an exec, which
/// does not return on success, may use the stack; a vfork child must not
/// touch its parent's environment).
#define ACCOUNT_ENV_FOR_EXEC(env, out)                                                             \
  char* const* out = (env);                                                                        \
  if (__builtin_expect(::account::shim_out_of_reach_in(out), 0)) {                                 \
    char** account_copy_ =                                                                         \
        static_cast<char**>(__builtin_alloca((::account::env_entries(out) + 1) * sizeof(char*)));  \
    char* account_entry_ = static_cast<char*>(__builtin_alloca(::account::kPreloadEntryCapacity)); \
    out = ::account::env_without_shim(out, account_copy_, account_entry_);                         \
  }
