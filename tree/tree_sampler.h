/// Sampling a whole process tree with one engine (sampling.h): every tick, the
/// statm of every live descendant of a process, summed for the tree's
/// concurrent peaks and folded into each process's own sampled peaks.
///
/// Under account run each process image the shim is loaded into has an image
/// file in the run's private directory (libaccount/image_file.h): the tree
/// sampler raises that image's peaks (and adds its timeline points) in the
/// file, and writes the record of any image that dies without writing its own
/// (SIGKILL, a crash, an OOM kill), so no image needs a sampler of its own.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "children_files.h"
#include "death_records.h"
#include "image_directory.h"
#include "proc_reader.h"
#include "proc_tree.h"
#include "process_count.h"
#include "sampling.h"

namespace account {

struct ImageInfo;
struct Settings;
struct ImageName;
struct Region;
struct SharedTimeline;
struct BacktraceStore;

/// Told about the processes of a tree watched from outside (account watch
/// --tree: programs run without the shim, so no image files): the watch
/// writes their records from what the sampler read.
class TreeObserver {
 public:
  /// A process was opened for the first time (alive, or a zombie not yet
  /// reaped), or it exec'd: `w.cpu` holds a stat read just now.
  virtual void image_found(pid_t pid, const ProcessWatch& w) = 0;
  /// A statm sample of a process (for its timeline).
  virtual void image_sampled(pid_t pid, const MemoryNow& now) = 0;
  /// A process image ended: it exited or was killed (classify_death), exec'd
  /// (kExec), or the watch stopped first (kRunning). `w` holds the last CPU and
  /// kernel-peak readings, `peaks` its sampled peaks.
  virtual void image_ended(pid_t pid, const ProcessWatch& w, const SampledPeaks& peaks,
                           const Ending& ending) = 0;
  /// A process still running, as report_running found it (fresh CPU and
  /// kernel-peak readings); it stays watched.
  virtual void image_running(pid_t pid, const ProcessWatch& w, const SampledPeaks& peaks) = 0;

 protected:
  ~TreeObserver() = default;
};

class TreeSampler {
 public:
  /// Samples the descendants of `root` (its children, theirs, ...). The
  /// shim's own sampler processes ("account-sampler", and the first clone that
  /// starts one) are not counted. `image_dir`: the run's directory of image
  /// files ("" for none).
  /// `fallback`: the identity and settings for an image that died before it
  /// could copy its own into its file (at least the output path).
  /// `proc` and `tree`: /proc, or a fake of it.
  explicit TreeSampler(pid_t root, std::string image_dir = "", const ImageInfo* fallback = nullptr,
                       ProcReader& proc = system_proc(), ProcTree& tree = system_tree());
  ~TreeSampler();
  TreeSampler(const TreeSampler&) = delete;
  TreeSampler& operator=(const TreeSampler&) = delete;

  /// Readable when a watched image's process has ended (poll it with the
  /// Ticker's timeout, then call handle_ended()).
  int wait_fd() const { return epoll_fd_; }

  /// One tick: finds new image files, walks the tree, reads every live
  /// process's statm, sums and raises the peaks; ends as handle_ended() does.
  /// Under account run a process the walk finds without an image file is
  /// only sighted (counted and live, nothing read) and met at its second
  /// sighting or when its image file appears: met in passing (statm and stat
  /// opened); at its next tick it gets its pidfd, status and children.
  void tick();
  /// Writes the record of each image whose process has ended without one, and
  /// forgets images that wrote their own. A process still met in passing
  /// (no pidfd yet) is found ended by reading its statm and stat.
  void handle_ended();
  /// One more tick and every ended image handled: call after the command
  /// ended. Returns how many processes of the tree still live (daemons).
  size_t settle();
  /// Pairs each image named by a pid namespace's pids that ended before it
  /// could be placed with the process the kernel's events showed its parent
  /// fork (ProcessCount::claim_unnamed_image), where its parent's pid in the
  /// namespace names one process of the tree only: a child that began and
  /// ended between two looks is then one process with the shim, not one
  /// without it. Once, when the command has ended and every fork of the tree
  /// is known (forked()): the latest fork before an image's start is then its
  /// own process's. (A lingering sampler hears no forks: it pairs nothing.)
  void pair_unnamed_images();
  /// Processes the sampler watches that have not ended.
  size_t live_processes() const;
  /// Images whose process is still running and has not written its record.
  size_t running_images() const;
  /// True when none of `pids` is a process the sampler still watches.
  bool all_ended(const std::vector<pid_t>& pids) const;
  /// True for the descriptors the sampler holds (to keep when closing others).
  bool owns_descriptor(int fd) const;
  /// Removes the image directory and whatever is left in it.
  void remove_image_dir();
  /// Removes what is left in the image directory (counting the records lost)
  /// and keeps the directory.
  void empty_image_dir();

  /// The images keep timelines (account run --timeline): every tick reads the
  /// run directory's watch, so a process is read from the first tick its
  /// image file is there and a command shorter than two ticks still gets the
  /// points of a curve. Otherwise a tick reads it only when it needs to.
  void follow_images_every_tick() { images_every_tick_ = true; }
  /// account watch --tree: the root itself is sampled too, every process
  /// once seen stays watched (and its children walked) after it leaves the
  /// root's tree (orphans), and `observer` is told of every process without
  /// an image file. Call before the first tick.
  void watch_from_outside(TreeObserver* observer);
  /// Where the kernel's process events are read (root): how a process its
  /// parent reaped before any tick saw it ended (heard_exits.h).
  void hear_exits(HeardExits* heard) {
    heard_ = heard;
    deaths_.hear_exits(heard);
  }
  /// Watches `pid` from now on (a fork of the tree that the proc connector
  /// reported before any walk could see it).
  void adopt(pid_t pid);
  /// `pid` exec'd: ends its image (kExec) and starts the new one.
  void image_replaced(pid_t pid);
  /// `pid` is exiting (the connector said so before its parent could reap
  /// it): its CPU read now is its last.
  void exiting(pid_t pid);
  /// Ends the record of every process still running (kRunning) and stops
  /// watching them.
  void stop_watching();
  /// Tells the observer of every process still running (image_running), with
  /// fresh readings, as stop_watching would but watching on: the figures so far.
  void report_running();
  /// True once the root has ended (watch_from_outside only).
  bool root_ended() const { return root_ended_; }

  const SampledPeaks& peaks() const { return tree_; }
  /// Processes of the tree: seen alive in a tick, or known by an image file
  /// (a short image may end before the first tick); a pid handed out again
  /// names another (process_count.h).
  uint64_t processes_seen() const { return count_.processes(); }
  /// The command itself (account run's child) is one of the tree's processes,
  /// even when it ended before any tick could see it.
  void add_root(pid_t pid) { count_.seen(pid, monotonic_ns(), false, quiet_ns_); }
  /// A process the kernel's process events say was forked into the tree
  /// (account run as root: tree_members.h): one of its processes, even if it
  /// ended before any tick could see it.
  void forked(pid_t pid, uint64_t fork_monotonic_ns, pid_t parent) {
    count_.forked(pid, fork_monotonic_ns, parent);
  }
  /// The events say a process of the tree exec'd.
  void execed(pid_t pid, uint64_t exec_monotonic_ns) { count_.execed(pid, exec_monotonic_ns); }
  /// Of those, the processes that never made an image file: they ran without
  /// the shim (a static or set-user-ID program), so nothing counted their
  /// copies and allocations; but not one that never exec'd, forked by a
  /// process with the shim (process_count.h: a vfork child whose exec
  /// failed). Exact where every fork is known (forked());
  /// otherwise a lower bound: one that lived less than a tick and was not the
  /// command may be missed.
  uint64_t processes_without_shim() const;
  /// Live descendants in the last tick.
  const std::vector<pid_t>& live() const { return live_; }
  /// When the last process the sampler watched ended (realtime ns; 0: none).
  uint64_t last_end_ns() const { return last_end_ns_; }
  /// Records this sampler wrote for images that died without writing theirs.
  uint64_t records_written() const { return deaths_.written(); }
  /// Records that could not be written to the output (a full disk): the
  /// images' own, as each says in its file, and this sampler's.
  uint64_t records_lost() const { return deaths_.lost(); }
  /// Image files their process truncated while the sampler read them: no
  /// record (every figure read from them since was a zero of the guard's),
  /// and the process counts as one without the shim (its figures unknown).
  uint64_t lost_image_files() const { return deaths_.lost_image_files(); }
  /// The errno of the first of them (0: none lost).
  int first_write_error() const { return deaths_.first_write_error(); }
  /// Children files read by the walk (not counting account run's own).
  uint64_t children_reads() const { return children_reads_; }
  /// Reads of the run directory's watch (ticks that looked for images).
  uint64_t image_looks() const { return image_looks_; }

 private:
  struct Image;
  struct Proc;
  Proc* proc_of(pid_t pid, bool has_image_file = false);
  bool insure(pid_t pid, Proc* p);
  bool sample(pid_t pid, Proc* p, SampledPeaks* peaks, MemoryNow* now);
  /// Ends the processes found ended, and with `ask_pidfds` those whose pidfd says so.
  void end_ended(bool ask_pidfds);
  bool has_ended(Proc* p);
  void discover_images();
  /// discover_images(), once a tick, when the tick needs to know the images:
  /// see tick().
  void look_for_images();
  /// A file of its is still not set up (as far as the last look knows).
  bool waits_for_file(const Proc& p) const;
  void look_at_image(const std::string& name);
  void forget_recorded_images();
  void record_death(Image& image, Proc* proc);
  /// The process's image now running: Proc::current(), once the exec record
  /// an image handed over (handed_over_exec) is written.
  Image* current_image(Proc* p);
  void record_stillborn(const std::string& name, const ImageName& id, Proc* proc);
  /// Whether the process an image file names is one of this tree's: its
  /// parents lead to the run, or to a process of the tree already met.
  bool of_this_tree(const ImageName& id);
  /// Whether an image file names a process of this tree (of_this_tree when
  /// `check_parents`, and for a pid the run has not met once a namespace
  /// below its own is known), by the run's pids or, from a pid namespace below
  /// the run's with a /proc of its own, by that namespace's: then *id is made
  /// the run's (place_nested).
  bool in_tree(ImageName* id, bool check_parents);
  /// The tree's process whose pid in its own namespace *id names: its pids
  /// put in *id. False when no process the sampler knows has that pid there.
  bool place_nested(ImageName* id);
  /// A process's pid in a namespace below the run's, once read (0: none).
  pid_t nested_pid_of(pid_t pid);
  /// An image named by a namespace's pids that could not be placed and is
  /// gone (it wrote its record): one to pair (pair_unnamed_images).
  void note_unnamed(const ImageName& id);
  void end_proc(pid_t pid);
  void forget_image(Image* image);
  /// Whether the process now under `pid` (if any) is one already ended and
  /// recorded: a zombie its parent has not reaped, met again by a walk, or by
  /// a fork event read after its end. Told by its start time, as a pid the
  /// kernel hands out again names a process that started later.
  bool recorded_already(pid_t pid);
  /// The sampler follows a process under `pid` that has not ended.
  bool following(pid_t pid) const;
  std::vector<pid_t> children(pid_t pid, ChildrenFile* file);
  /// A walked process's children: read, or the last read while still true.
  const std::vector<pid_t>& known_children(pid_t pid, Proc* p);
  void sense_forks();
  std::vector<pid_t> root_children();

  /// Processes whose children files stay open (beyond, each tick opens them).
  static constexpr size_t kChildrenFilesKept = 128;

  pid_t root_;
  ImageDirectory image_dir_;
  bool images_looked_ = false;  // this tick read the run directory's watch
  bool images_every_tick_ = false;
  ProcReader& reader_;
  ProcTree& proc_tree_;
  DeathRecords deaths_;
  HeardExits* heard_ = nullptr;
  int epoll_fd_ = -1;
  uint64_t ticks_ = 0;
  SampledPeaks tree_{};
  ProcessCount count_;
  /// How long a pid no tick followed goes unseen before it names a new
  /// process (process_count.h): two intervals, at least kQuietMinNs.
  static constexpr uint64_t kQuietMinNs = 1000000000;
  uint64_t quiet_ns_ = kQuietMinNs;
  uint64_t tick_ns_ = 0;       // the current tick's start (CLOCK_MONOTONIC)
  std::set<pid_t> sighted_;    // sighted in the last tick's walk, not met yet
  bool meet_at_once_ = false;  // settle(): no first sighting waits
  std::vector<pid_t> live_;
  std::map<pid_t, std::unique_ptr<Proc>> procs_;
  std::map<std::string, std::unique_ptr<Image>> images_;  // by file name
  std::set<std::string> stillborn_;  // image files that could not be mapped yet
  /// Markers of images that run standalone (ImageFileLook::kStandaloneMarker):
  /// decided when their process ends, never looked at again.
  std::set<std::string> marked_;
  /// An image file named in a pid namespace below the run's has been seen:
  /// from then on the walk reads each process's pid there at its first
  /// sighting (one that ends before the file is looked at can be placed).
  bool nested_ = false;
  std::map<pid_t, pid_t> nested_pids_;  // the run's pid -> its pid below (0: none)
  /// Image files named in a namespace below the run's whose process no walk
  /// has sighted yet: looked at again until placed or removed.
  std::set<std::string> unplaced_;
  struct UnnamedImage {
    pid_t pid, ppid;  // the namespace's
    uint64_t start_ns;
  };
  /// Beyond these, an image is counted as before (its process once more,
  /// without the shim): a bound on the end's pairing, which looks at each
  /// image's parent's forks.
  static constexpr size_t kMaxUnnamed = 4096;
  std::vector<UnnamedImage> unnamed_;  // not paired yet
  uint64_t last_end_ns_ = 0;
  TreeObserver* observer_ = nullptr;    // set: watched from outside
  std::map<pid_t, uint64_t> recorded_;  // ended and recorded: pid -> its start_ticks
  ChildrenFile root_children_;          // root_'s, when it is not watched itself
  std::vector<pid_t> root_kids_;        // its children at the last read
  bool reread_root_ = false;
  bool root_ended_ = false;
  int loadavg_fd_ = -1;         // /proc/loadavg, for the last pid handed out
  uint64_t last_pid_ = 0;       // as it was at the last tick (0: unknown)
  uint64_t forked_at_ = 0;      // the last tick that found a pid handed out since the one before
  size_t children_walked_ = 0;  // processes whose children the last tick's walk wanted
  uint64_t children_reads_ = 0;
  uint64_t image_looks_ = 0;
};

/// True if the process whose stat this is is one of the shim's sampler processes.
bool is_shim_sampler(const CpuAndExit& stat);

}  // namespace account
