// Composing and writing the one record of a process image, from the target at
// exit or exec, or from the sampler when the target died without running code.
#pragma once

#include <stdint.h>

#include "../sampler/proc_files.h"
#include "atomics.h"
#include "region.h"
#include "settings.h"
#include "text_buffer.h"

namespace account {

enum class EndKind { kExit, kExec, kSignal, kKilled };

struct Ending {
  EndKind kind = EndKind::kExit;
  int code = 0;  // exit status for kExit, signal number for kSignal/kKilled
  bool code_known = true;
  bool by_sampler = false;
};

struct FinalFigures {
  uint64_t end_realtime_ns = 0;
  uint64_t cpu_user_ns = 0;
  uint64_t cpu_sys_ns = 0;
  MemoryPeaks peaks;  // the kernel's VmPeak/VmHWM
  MemoryNow last;     // a last statm reading, folded into the sampled peaks
};

void compose_record(TextBuffer& out, const Identity& id, const Settings& settings,
                    const Region* region, const FinalFigures& figures, const Ending& ending);
void compose_summary(TextBuffer& out, const Identity& id, const Region* region,
                     const FinalFigures& figures, const Ending& ending);

// Appends one record with a single write (O_APPEND) to the output of `settings`
// for process `pid`. Returns 0 or an errno value; *path receives the expanded path.
int append_record(const Settings& settings, int pid, const char* data, uint64_t len, char* path,
                  uint64_t path_cap);

// Checks at start-up that the output can be opened (creating it); warns once if not.
bool check_output_writable(const Settings& settings, int pid);
extern bool g_output_warned;  // at most one warning line per process

// Writes the record (or the stderr summary when no output is set), warning once
// on failure. Used by the target and by the sampler.
void emit_into(char* storage, size_t capacity, const Identity& id, const Settings& settings,
               const Region* region, const FinalFigures& figures, const Ending& ending);
void emit(const Identity& id, const Settings& settings, const Region* region,
          const FinalFigures& figures, const Ending& ending);

}  // namespace account
