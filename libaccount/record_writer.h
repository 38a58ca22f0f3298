/// Composing and writing records: the one place that writes the process-record
/// and tree-record keys (record_keys.h), for every writer: the target at exit or
/// exec, the shim's per-image sampler, account run's tree sampler and account
/// watch. Allocation-free and async-signal-safe (it runs at exit, after fork and
/// in samplers); the tools call the same functions.
#pragma once

#include <stdint.h>
#include <sys/stat.h>

#include "atomics.h"
#include "ending.h"
#include "proc_files.h"
#include "region.h"
#include "sampling.h"
#include "settings.h"
#include "text_buffer.h"

namespace account {

struct SharedTimeline;
struct BacktraceStore;

/// What a process record is composed from: the image's own memory when it
/// writes its record, a copy or its image file when a sampler does.
struct RecordSource {
  const Identity* identity = nullptr;
  const Settings* settings = nullptr;
  const Region* region = nullptr;  // counters, sampled peaks
  const SharedTimeline* timeline = nullptr;
  const BacktraceStore* backtraces = nullptr;
  uint32_t malloc_found = 0;    // MallocFound (next_allocator.h)
  bool counted = true;          // false: watched from outside, no counters
  uint64_t watch_start_ns = 0;  // account watch: when it started looking
};

/// This image, from inside it (g_identity, g_settings, g_region, ...).
RecordSource this_image();

struct FinalFigures {
  uint64_t end_realtime_ns = 0;
  uint64_t cpu_user_ns = 0;
  uint64_t cpu_sys_ns = 0;
  MemoryPeaks peaks;        // the kernel's VmPeak/VmHWM
  MemoryNow last;           // a last statm reading, folded into the sampled peaks
  KernelCounters counters;  // faults, context switches, I/O: each group when read
};

/// What a sampler knows of a process it watched to its end (its last stat and
/// status reads): the one way a record is made from outside the process (the
/// per-image sampler, the tree sampler, account watch).
FinalFigures final_figures_of(const ProcessWatch& w, uint64_t end_realtime_ns);

void compose_record(TextBuffer& out, const RecordSource& src, const FinalFigures& figures,
                    const Ending& ending);
void compose_summary(TextBuffer& out, const RecordSource& src, const FinalFigures& figures,
                     const Ending& ending);
/// Room compose_record may need for this source.
size_t record_capacity(const RecordSource& src);

/// The tree record of one run of account run (or account watch --tree).
struct TreeFigures {
  const char* host = nullptr;  // nullptr: this machine's (uname)
  const char* test = "";
  const char* op = "";
  uint32_t run = 0;
  uint64_t start_ns = 0, end_ns = 0;  // the command: spawn to its end
  uint64_t tree_end_ns = 0;           // the last process of the tree (0: not known)
  uint64_t processes = 0;
  uint64_t processes_without_shim = 0;  // written when not 0
  SampledPeaks peaks{};                 // of the summed tree
  /// account run: the CPU it spent itself on this run (the tree sampler, the
  /// spawn, the waiting), as sampler_cpu_s.
  bool have_sampler_cpu = false;
  uint64_t sampler_cpu_ns = 0;
  /// account run: wait4's rusage of the command (it and every descendant it
  /// waited for): user + system CPU, and ru_maxrss (the largest single
  /// process's resident peak), as waited_cpu_s and waited_max_rss_bytes.
  bool have_waited = false;
  uint64_t waited_cpu_ns = 0;
  uint64_t waited_max_rss_bytes = 0;
  bool have_status = false;
  int wait_status = 0;  // the command's raw wait status
  bool aborted = false;
  int interrupted = 0;        // the signal that interrupted account run, 0: none
  uint64_t killed_after = 0;  // processes SIGKILLed when --kill-after ran out (written when not 0)
  /// account run --cgroup: the command's cgroup peaks, each written when have_.
  bool have_cgroup_memory_peak = false;
  uint64_t cgroup_memory_peak_bytes = 0;
  bool have_pids_peak = false;
  uint64_t pids_peak = 0;
  /// The signals that are the command's normal stop (--stop-signal; a watched
  /// root's TERM, INT, HUP): written as stop_signals when there are any.
  const int* stop_signals = nullptr;
  int stop_signal_count = 0;
  /// The command's argv (argc strings), or none.
  const char* const* command = nullptr;
  int command_argc = 0;
  /// account watch --tree: when the watch began, and the tree's processes that
  /// no record shows (unseen_source "": not a watched tree, none written).
  uint64_t watch_start_ns = 0;
  uint64_t unseen_processes = 0;
  uint64_t unseen_cpu_ns = 0;
  const char* unseen_source = "";
};
void compose_tree_record(TextBuffer& out, const TreeFigures& tree);

/// Opens a file the shim writes records or logs to, for appending: a pinned
/// output (account run's) as it is, any other created if missing and reached
/// through no symbolic link; never blocking on a FIFO. The descriptor (above
/// stdio), or -errno (-ELOOP: a link on the way).
int open_output(const char* path, bool pinned);

/// Appends one record with a single write (O_APPEND) to the output of `settings`
/// for process `pid`. Returns 0 or an errno value; *path receives the expanded path.
int append_record(const Settings& settings, int pid, const char* data, uint64_t len, char* path,
                  uint64_t path_cap);

/// Checks at start-up that the output can be opened (creating it); warns once if not.
bool check_output_writable(const Settings& settings, int pid);
extern bool g_output_warned;  // at most one warning line per process
/// The image's own record could not be written (`err` from emit): one warning
/// line, unless one was given already.
void warn_record_lost(const Settings& settings, int pid, int err);

/// A record composed and not yet written (in the caller's buffer, a static
/// buffer or a mapping).
struct ComposedRecord {
  const char* data = nullptr;
  size_t size = 0;
  bool to_stderr = false;  // the human summary (no output set)
  void* mapping = nullptr;
  size_t mapping_size = 0;
};
/// Room for a usual record (under 3 KiB: no backtraces, no timeline, a short
/// argv) on the writer's stack. At an image's end the stack is already that
/// deep (the /proc/self/status read just before used 4 KiB of it), so the
/// record costs no page fault; a static buffer would cost one. Kept under
/// that read's depth, so an end takes no more stack than before.
constexpr size_t kStackRecordBytes = 3 * 1024;
/// Composes the record of `src` (or its stderr summary when no output is set):
/// in `stack_room` (kStackRecordBytes) if it fits, else in a static buffer,
/// else in a mapping.
bool compose_for_output(const RecordSource& src, const FinalFigures& figures, const Ending& ending,
                        char* stack_room, ComposedRecord* out);
/// Writes it and frees it. Returns 0, or the errno of a failed write.
int write_composed(ComposedRecord* record, const RecordSource& src);

/// A sampler found the image of `src` dead without its record: claims the
/// record (true: write it now). An image killed while writing its own (state
/// kWriting) is claimed only if its record is not at the end of the output.
/// An image that handed its record over (kHandedOver) is claimed too, and
/// *handed_over says so: its figures and ending are read with read_handover.
bool claim_dead_image_record(Region* region, const Settings& settings, int pid, uint64_t start_ns,
                             bool* handed_over = nullptr);

/// Hands the record of an image that could not write it to the run's tree
/// sampler, or standalone to the image's own sampler process: its figures and
/// ending go into Region::handover, then the state says kHandedOver. One that
/// ends by exit or a signal is recorded once its process is gone; an exec'ing
/// one (its process goes on as the next program, only in an image file) at
/// the tree sampler's next tick (handed_over_exec).
void hand_over_record(Region* region, const FinalFigures& figures, const Ending& ending);
/// What hand_over_record left, read after the claim.
void read_handover(const Region* region, FinalFigures* figures, Ending* ending);
/// True if the image handed over the record of its exec: its process is the
/// next program's now, and the record is due before that program's samples
/// reach the image's file.
bool handed_over_exec(const Region* region);

/// An image in a sandbox, ending, leaves how (memory only: no system call).
void leave_sandbox_ending(Region* region, const Ending& ending);
/// For the sampler that found the image dead: `seen` (from its zombie), or,
/// when that is unknown (reaped before anyone looked), the ending the image
/// left, if it left one.
Ending ending_of_dead_image(const Region* region, const Ending& seen);

/// Composes and writes the record (or the stderr summary when no output is
/// set). Returns 0, or the errno of what failed (ENOMEM: no room to compose
/// it). Says nothing: whoever wrote it decides who is told.
int emit(const RecordSource& src, const FinalFigures& figures, const Ending& ending);

}  // namespace account
