/// How a process image ended and who wrote its record: the `end`, `exit_code`,
/// `signal` and `written_by` keys of a process record.
#pragma once

namespace account {

enum class EndKind { kExit, kExec, kSignal, kKilled, kRunning };

/// Who wrote the record: the image itself, a sampler that saw it die (the
/// shim's per-image sampler or account run's tree sampler), or account watch.
enum class Writer { kProcess, kSampler, kWatch };

struct Ending {
  EndKind kind = EndKind::kExit;
  int code = 0;  // exit status for kExit, signal number for kSignal/kKilled
  bool code_known = true;
  Writer writer = Writer::kProcess;
};

/// A zombie's raw wait status (field 52 of /proc/PID/stat) as an Ending.
/// Without one (the process was reaped before anyone looked) the cause is
/// unknown: kKilled without a signal number.
inline Ending ending_from_wait_status(bool have_status, int status, Writer writer) {
  Ending e;
  e.writer = writer;
  if (!have_status) {
    e.kind = EndKind::kKilled;
    e.code_known = false;
  } else if ((status & 0x7f) != 0) {  // WIFSIGNALED
    e.code = status & 0x7f;
    e.kind = e.code == 9 ? EndKind::kKilled : EndKind::kSignal;  // SIGKILL
  } else {
    e.kind = EndKind::kExit;
    e.code = (status >> 8) & 0xff;
  }
  return e;
}

}  // namespace account
