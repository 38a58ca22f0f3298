/// The keys of the records: the one list that the writer (record_writer.cc) and the
/// reader (parse/record.cc) both use, so the two cannot drift apart.
/// docs/record-format.md explains each.
#pragma once

namespace account::keys {

/// Every record.
inline constexpr char kSchema[] = "schema";
inline constexpr char kKind[] = "kind";  // "process" or "tree"
inline constexpr char kTest[] = "test";
inline constexpr char kOp[] = "op";
inline constexpr char kStartNs[] = "start_ns";
inline constexpr char kEndNs[] = "end_ns";
inline constexpr char kHost[] = "host";
inline constexpr char kSampledSizePeak[] = "sampled_size_peak_bytes";
inline constexpr char kSampledRssPeak[] = "sampled_rss_peak_bytes";
inline constexpr char kSampledRssAnonPeak[] = "sampled_rss_anon_peak_bytes";
inline constexpr char kSamples[] = "samples";
inline constexpr char kExitCode[] = "exit_code";
inline constexpr char kSignal[] = "signal";

/// Process records.
inline constexpr char kPid[] = "pid";
inline constexpr char kPpid[] = "ppid";
/// The pid the image knew in a pid namespace below account run's (its own
/// /proc's), where pid and ppid are the run's: present only then.
inline constexpr char kNamespacePid[] = "namespace_pid";
inline constexpr char kExe[] = "exe";
inline constexpr char kArgv[] = "argv";
inline constexpr char kArgvTruncated[] = "argv_truncated";
inline constexpr char kCpuUser[] = "cpu_user_s";
inline constexpr char kCpuSys[] = "cpu_sys_s";
inline constexpr char kMallocBytes[] = "malloc_bytes";
inline constexpr char kMallocCalls[] = "malloc_calls";
inline constexpr char kFreeCalls[] = "free_calls";
inline constexpr char kReallocCopiedBytes[] = "realloc_copied_bytes";
inline constexpr char kCopiedBytes[] = "copied_bytes";
inline constexpr char kCopiedCalls[] = "copied_calls";
inline constexpr char kLibcCopiedBytes[] = "libc_copied_bytes";  // part of copied_bytes
inline constexpr char kLibcCopiedCalls[] = "libc_copied_calls";  // part of copied_calls
inline constexpr char kLibcCopiesCounted[] = "libc_copies_counted";
inline constexpr char kHeapPeak[] = "heap_peak_bytes";
/// The heap at the image's end (absent after exec): usable bytes, as the peak
/// counts them, and blocks; a fork child's include what it inherited.
inline constexpr char kHeapAtExitBytes[] = "heap_at_exit_bytes";
inline constexpr char kHeapAtExitBlocks[] = "heap_at_exit_blocks";
/// Blocks freed by their thread before its next allocation, and their requests.
inline constexpr char kTemporaryAllocs[] = "temporary_allocs";
inline constexpr char kTemporaryBytes[] = "temporary_bytes";
inline constexpr char kMallocInterposed[] = "malloc_interposed";
inline constexpr char kCounted[] = "counted";
inline constexpr char kVmPeak[] = "vm_peak_bytes";
inline constexpr char kRssPeak[] = "rss_peak_bytes";
inline constexpr char kSamplerCpu[] = "sampler_cpu_s";
inline constexpr char kWaitedCpu[] = "waited_cpu_s";
inline constexpr char kWaitedMaxRss[] = "waited_max_rss_bytes";
inline constexpr char kEnd[] = "end";               // exit, exec, signal, killed, running
inline constexpr char kWrittenBy[] = "written_by";  // process, sampler, watch
inline constexpr char kWatchStartNs[] = "watch_start_ns";
inline constexpr char kTimeline[] = "timeline";
/// The kernel's counters at the end (getrusage, /proc/PID/stat and io): each
/// absent when it could not be read, never written as 0 then.
inline constexpr char kMinorFaults[] = "minor_faults";
inline constexpr char kMajorFaults[] = "major_faults";
inline constexpr char kVoluntaryCtxsw[] = "voluntary_ctxsw";
inline constexpr char kInvoluntaryCtxsw[] = "involuntary_ctxsw";
inline constexpr char kReadBytes[] = "read_bytes";    // from storage
inline constexpr char kWriteBytes[] = "write_bytes";  // to storage
inline constexpr char kRchar[] = "rchar";             // through read-like calls
inline constexpr char kWchar[] = "wchar";             // through write-like calls

/// Tree records.
inline constexpr char kRun[] = "run";
inline constexpr char kTreeEndNs[] = "tree_end_ns";
inline constexpr char kProcesses[] = "processes";
/// Processes of the tree that never had the shim (static, set-user-ID programs).
inline constexpr char kProcessesWithoutShim[] = "processes_without_shim";
inline constexpr char kAborted[] = "aborted";
inline constexpr char kCommand[] = "command";          // the command's argv
inline constexpr char kInterrupted[] = "interrupted";  // the signal account run got
/// Processes account run SIGKILLed when --kill-after ran out after that signal.
inline constexpr char kKilledAfter[] = "killed_after";
/// account run's own cgroup for the command (run_cgroup.h): the kernel's peak
/// of the memory charged to it, and of its tasks; absent where none was made
/// or the kernel keeps no such peak.
inline constexpr char kCgroupMemoryPeak[] = "cgroup_memory_peak_bytes";
inline constexpr char kPidsPeak[] = "pids_peak";
inline constexpr char kStopSignals[] =
    "stop_signals";  // signals that are the command's normal stop
/// account watch --tree: processes of the tree that no record shows (shorter
/// than one interval), their CPU, and how the count was made.
inline constexpr char kUnseenProcesses[] = "unseen_processes";
inline constexpr char kUnseenCpu[] = "unseen_cpu_s";
inline constexpr char kUnseenSource[] = "unseen_source";  // proc_connector, loadavg

}  // namespace account::keys
