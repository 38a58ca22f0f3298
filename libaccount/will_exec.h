/// Whether an exec is about to succeed, checked the way the kernel will: a
/// regular, executable file that is ELF or a "#!" script whose interpreter
/// passes the same check. The exec record is written only then, so a program
/// that tries several paths (a PATH search by hand) or a missing interpreter
/// leaves the image running and unrecorded.
#pragma once

namespace account {

/// `path` relative to `dirfd` (AT_FDCWD, or a descriptor with AT_EMPTY_PATH in
/// `flags`). `shell_fallback`: the execvp family runs other files with /bin/sh.
bool exec_would_run(int dirfd, const char* path, int flags, bool shell_fallback);

/// As execvp would search PATH for `file`.
bool exec_would_run_on_path(const char* file);

}  // namespace account
