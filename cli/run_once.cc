#include "run_once.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "clock.h"
#include "close_descriptors.h"
#include "file_id.h"
#include "heard_exits.h"
#include "image_file.h"
#include "proc_events.h"
#include "record_file.h"
#include "record_writer.h"
#include "run_cgroup.h"
#include "run_guard.h"
#include "run_leftovers.h"
#include "run_signals.h"
#include "run_stages.h"
#include "sampling.h"
#include "spawn_command.h"
#include "tree_members.h"
#include "tree_sampler.h"
#include "values.h"

namespace account {

namespace {

uint64_t timeval_ns(const timeval& tv) {
  return uint64_t(tv.tv_sec) * 1000000000ull + uint64_t(tv.tv_usec) * 1000ull;
}

}  // namespace

std::string tree_record(const RunOptions& o, const RunResult& r, unsigned run) {
  TreeFigures t;
  t.test = o.test.c_str();
  t.op = o.op.c_str();
  t.run = run;
  t.start_ns = r.start_ns;
  t.end_ns = r.end_ns;
  t.tree_end_ns = r.tree_end_ns;
  t.processes = r.processes;
  t.processes_without_shim = r.processes_without_shim;
  t.peaks = r.peaks;
  t.have_sampler_cpu = true;
  t.sampler_cpu_ns = r.own_cpu_ns;
  t.have_waited = true;
  t.waited_cpu_ns = r.waited_cpu_ns;
  t.waited_max_rss_bytes = r.waited_max_rss_bytes;
  t.have_status = true;
  t.wait_status = r.status;
  t.aborted = r.aborted;
  t.interrupted = r.interrupted;
  t.killed_after = r.killed_after;
  t.have_cgroup_memory_peak = r.cgroup.memory_bytes.has_value();
  t.cgroup_memory_peak_bytes = r.cgroup.memory_bytes.value_or(0);
  t.have_pids_peak = r.cgroup.pids.has_value();
  t.pids_peak = r.cgroup.pids.value_or(0);
  t.stop_signals = o.stop_signals.data();
  t.stop_signal_count = int(o.stop_signals.size());
  std::vector<const char*> argv;
  size_t argv_bytes = 0;
  for (const std::string& a : o.command) argv.push_back(a.c_str()), argv_bytes += a.size();
  t.command = argv.data();
  t.command_argc = int(argv.size());
  // A tree record is a few hundred bytes: composed in 4 KiB, and only if
  // that overflows in room for the longest it can be (64 KiB and more: 16
  // fresh pages of heap to fault in and clear, for every run).
  const size_t longest = 64 * 1024 + 6 * (o.test.size() + o.op.size() + argv_bytes + argv.size());
  std::string line;
  for (size_t room = std::min<size_t>(4096, longest);; room = longest) {
    line.assign(room, '\0');
    TextBuffer out(line.data(), line.size());
    compose_tree_record(out, t);
    if (!out.overflowed() || room == longest) {
      line.resize(out.size());
      return line;
    }
  }
}

namespace {

// Returns "" or why the record could not be written. Said by the caller
// (account run, in its count of lost records), or here (a lingering sampler,
// whose account run has left).
std::string write_tree_record(const std::string& path, const std::string& line) {
  return append_record_line(path, line);
}

// Reaps every child but `keep` that has exited (orphans that came back to us),
// and reports whether `keep` has exited (held as a zombie, not reaped, so the
// tree sampler can still read how it died).
bool reap_others(pid_t keep) {
  bool keep_exited = false;
  for (;;) {
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) break;
    if (info.si_pid == keep) {
      keep_exited = true;
      // Reap the others one by one until only `keep` is left waiting.
      bool reaped_any = false;
      for (pid_t c : children_of(getpid())) {
        if (c == keep) continue;
        int st;
        if (waitpid(c, &st, WNOHANG) > 0) reaped_any = true;
      }
      if (!reaped_any) break;
      continue;
    }
    int st;
    waitpid(info.si_pid, &st, WNOHANG);
  }
  return keep_exited;
}

// The run's private directory for image files: on tmpfs, so the counters the
// processes write never go to a disk. Empty if none can be made (the shim
// then starts a sampler per image).
}  // namespace

std::vector<std::string> image_dir_bases() {
  std::vector<std::string> bases = {"/dev/shm"};
  if (const char* tmp = getenv("TMPDIR"); tmp && *tmp) bases.emplace_back(tmp);
  bases.emplace_back("/tmp");
  return bases;
}

namespace {

std::string make_image_dir() {
  for (const std::string& base : image_dir_bases()) {
    std::string tmpl = run_name_template(base, "");
    if (mkdtemp(tmpl.data())) return tmpl;  // mode 0700
  }
  return "";
}

// What the tree sampler writes for an image killed before it could copy its
// own identity and settings into its file. Static, so its 31 KB are data the
// binary holds initialized: a run writes only the pages of the fields below,
// where a fresh copy on the heap cost 8 page faults and a clear at every run.
// Each run sets the same fields again; the previous run's sampler is gone.
const ImageInfo* run_fallback_info(const RunOptions& o, const std::string& path) {
  static ImageInfo info;
  Settings& s = info.settings;
  s.has_output = true;
  copy_string(s.output, sizeof s.output, path.c_str());
  copy_string(s.test, sizeof s.test, o.test.c_str());
  copy_string(s.op, sizeof s.op, o.op.c_str());
  s.sample_ms = o.interval_ms;
  return &info;
}

// Processes of the run still live after the command ended (daemons): a
// detached "account-sampler" keeps watching them until they end, so each is
// still recorded, even if it is killed; then it removes the image directory.
// The run's tree record is its to write, once the last of them has ended.
// With a temporary output no one reads the records: the sampler writes no
// tree record and removes the file the daemons' records made again.
void linger(TreeSampler& tree, RunCgroup* cgroup, const RunOptions& o, const std::string& path,
            RunResult r, unsigned run, const RunSignals& signals, bool temporary) {
  pid_t pid = fork();
  if (pid < 0 && !temporary) {  // the images still record themselves; the tree record is now
    r.tree_end_ns = realtime_ns();
    if (std::string err = write_tree_record(path, tree_record(o, r, run)); !err.empty())
      fmt::print(stderr, "account: cannot write the tree record to {}: {}\n", path, err);
  }
  if (pid > 0 && cgroup) cgroup->release();  // the daemons are still in it: the sampler's to remove
  if (pid != 0) return;
  signals.restore();  // a TERM ends this sampler as any other process
  setsid();
  prctl(PR_SET_NAME, "account-sampler", 0, 0, 0);
  // A lingering sampler must not hold a pipe its caller waits on.
  close_descriptors_except([&](int fd) { return tree.owns_descriptor(fd); });
  Ticker ticker(o.tick_ms());
  pollfd p{tree.wait_fd(), POLLIN, 0};
  sampling_loop(
      ticker, &p, 1, [&] { return tree.live_processes() > 0; },
      [&](int, bool due) {
        tree.handle_ended();
        if (due) tree.tick();
        return true;
      });
  tree.empty_image_dir();  // counts what it finds: before the tree record
  r.tree_end_ns = std::max(r.end_ns, tree.last_end_ns());
  r.processes = tree.processes_seen();
  r.processes_without_shim = tree.processes_without_shim();
  r.peaks = tree.peaks();
  r.own_cpu_ns += process_cpu_now_ns();  // a fork's own CPU starts at 0
  if (cgroup) r.cgroup = cgroup->peaks();
  if (temporary)
    unlink(path.c_str());
  else if (std::string err = write_tree_record(path, tree_record(o, r, run)); !err.empty())
    fmt::print(stderr, "account: cannot write the tree record to {}: {}\n", path, err);
  if (cgroup) cgroup->remove();
  // Last: the directory's end tells that the record file is complete.
  tree.remove_image_dir();
  _exit(0);
}

std::chrono::steady_clock::time_point after_seconds(double s) {
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(s));
}

// The run's cgroup, or nullptr: said once under auto, or *failed under require.
std::unique_ptr<RunCgroup> make_run_cgroup(const RunOptions& o, unsigned run, bool* failed) {
  static bool said = false;
  if (o.cgroup == CgroupMode::kOff) return nullptr;
  std::string why;
  std::unique_ptr<RunCgroup> cgroup =
      o.cgroup_place ? RunCgroup::make(*o.cgroup_place, run, &why) : nullptr;
  if (!o.cgroup_place) why = o.no_cgroup_place;
  if (cgroup) return cgroup;
  if (o.cgroup == CgroupMode::kRequire) {
    fmt::print(stderr, "account: run: --cgroup=require: {}\n", why);
    *failed = true;
  } else if (!said && !o.quiet) {
    fmt::print(stderr,
               "account run: no cgroup of its own for the command ({}): no "
               "cgroup_memory_peak_bytes (--cgroup=off to not try)\n",
               why);
  }
  said = true;
  return nullptr;
}

}  // namespace

RunResult run_once(const RunOptions& o, const std::string& path, unsigned run, RunSignals& signals,
                   bool temporary, RunGuard& guard) {
  RunResult r;
  std::unique_ptr<RunCgroup> cgroup = make_run_cgroup(o, run, &r.cgroup_failed);
  if (r.cgroup_failed) {
    r.status = kRunFailed << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    return r;
  }
  run_stage("cgroup made");
  uint64_t cpu_at_start = process_cpu_now_ns();
  std::string image_dir = make_image_dir();
  struct stat parent;  // where the images look for it: /dev/shm, $TMPDIR or /tmp
  if (image_dir.empty() || stat(image_dir.substr(0, image_dir.rfind('/')).c_str(), &parent) != 0) {
    unsetenv(kRunDirVariable);
    unsetenv(kRunDirParentVariable);
  } else {
    setenv(kRunDirVariable, image_dir.c_str(), 1);
    setenv(kRunDirParentVariable, file_id(parent).c_str(), 1);
  }
  run_stage("image directory made");
  TreeSampler tree(getpid(), image_dir, run_fallback_info(o, path));
  if (o.timeline) tree.follow_images_every_tick();
  // Where the kernel's process events can be read (root), every fork of the
  // tree is counted, also a static program's that ends within a tick.
  // Subscribed before the command starts; read every kSlowEvery turns (not
  // woken by every fork on the machine). Without an image directory the
  // shim starts samplers of its own, which are no processes of the tree.
  std::unique_ptr<ProcEvents> events;
  if (!image_dir.empty()) {
    events = std::make_unique<ProcEvents>();
    if (!events->ok()) events.reset();
  }
  run_stage("tree sampler and process events ready");
  TreeMembers members;
  HeardExits heard;
  // Forks and execs of the tree, read, not yet handed to the tree sampler.
  std::vector<ProcEvent> forks;
  auto read_events = [&] {
    ProcEvent e;
    while (events && events->next(&e)) {
      bool member_ended = e.kind == ProcEvent::kExit && members.has(e.pid);
      if (members.follow(e)) {
        heard.forked(e.pid);
        forks.push_back(e);
      } else if (member_ended) {
        heard.exited(e.pid, e.exit_status);
      } else if (e.kind == ProcEvent::kExec && members.has(e.pid)) {
        forks.push_back(e);
      }
    }
  };
  auto follow_forks = [&] {
    read_events();
    for (const ProcEvent& e : std::exchange(forks, {})) {
      if (e.kind == ProcEvent::kExec)
        tree.execed(e.pid, e.monotonic_ns);
      else
        tree.forked(e.pid, e.monotonic_ns, e.parent);
    }
  };
  if (events) {
    // A lookup comes from inside a tick: the forks wait for follow_forks.
    heard.read_first_with(read_events);
    tree.hear_exits(&heard);
  }

  // The command starts with the signal mask and dispositions account run started with.
  // A guard reaches the command's children through it: the command must not
  // die first and orphan them (run_guard.h). Without a guard it dies with the run.
  static const std::vector<int> kNoGroups;
  ready_for_children(guard);
  Spawned spawned =
      spawn_command(o.command, signals.child(), nullptr, !guard.started(),
                    cgroup ? cgroup->join_fds() : kNoGroups, o.cgroup == CgroupMode::kRequire);
  if (spawned.pid < 0 && spawned.join_error != 0 && o.cgroup == CgroupMode::kRequire) {
    r.cgroup_failed = true;
    fmt::print(stderr, "account: run: --cgroup=require: the command cannot join its cgroup: {}\n",
               std::strerror(spawned.join_error));
    r.status = kRunFailed << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    tree.remove_image_dir();
    return r;
  }
  if (spawned.pid >= 0 && spawned.join_error != 0) {
    fmt::print(stderr,
               "account run: the command cannot join its cgroup ({}): no "
               "cgroup_memory_peak_bytes\n",
               std::strerror(spawned.join_error));
    cgroup.reset();
  }
  if (spawned.pid < 0) {
    int err = spawned.error;
    fmt::print(stderr, "account: cannot run '{}': {}\n", o.command[0], std::strerror(err));
    r.status = (err == ENOENT ? 127 : 126) << 8;
    r.started = false;
    r.start_ns = r.end_ns = realtime_ns();
    tree.remove_image_dir();
    return r;
  }
  run_stage_at("command exec'd", spawned.exec_monotonic_ns);
  pid_t child = spawned.pid;
  guard.publish(child, {});
  tree.add_root(child);
  members.add(child);
  r.start_ns = spawned.exec_ns;
  int child_fd = int(syscall(SYS_pidfd_open, child, 0));
  Ticker ticker(o.tick_ms());
  auto started = std::chrono::steady_clock::now();
  std::vector<pid_t> killed;
  std::vector<pid_t> killed_late;  // by --kill-after, each pid once
  auto kill_late = [&](pid_t p) {
    // A zombie takes a signal as if it were alive: one of our children (the
    // command, an orphan that came back) that already ended is not counted as
    // killed by --kill-after.
    siginfo_t ended{};
    if (waitid(P_PID, id_t(p), &ended, WEXITED | WNOHANG | WNOWAIT) == 0 && ended.si_pid == p)
      return;
    if (kill(p, SIGKILL) != 0) return;
    killed.push_back(p);
    if (std::find(killed_late.begin(), killed_late.end(), p) == killed_late.end())
      killed_late.push_back(p);
  };
  // A signal to account run goes on to the command and every live process of
  // its tree (a second one, as Ctrl-C gives the command from the terminal, is
  // harmless); what is left of the tree --kill-after later is killed.
  auto kill_at = std::chrono::steady_clock::time_point::max();
  auto pass_on_signals = [&] {
    while (int sig = signals.take()) {
      if (!r.interrupted) {
        r.interrupted = sig;
        kill_at = after_seconds(o.kill_after_s);
      }
      forward_signal(sig, child, tree.live());
    }
  };
  auto kill_when_due = [&] {
    if (std::chrono::steady_clock::now() < kill_at) return false;
    for (pid_t p : tree.live()) kill_late(p);
    return true;
  };
  bool killed_after = false;
  uint64_t turns = 0;
  // Not woken by every process of the tree that ends (tree.wait_fd()): a
  // script of short commands would wake this process, on the other core,
  // at every one of them. An ended process waits for the next tick.
  pollfd fds[2] = {{signals.fd(), POLLIN, 0}, {child_fd, POLLIN, 0}};
  sampling_loop(ticker, fds, child_fd >= 0 ? 2 : 1, always, [&](int, bool due) {
    if (fds[1].revents & POLLIN) r.end_ns = realtime_ns();
    if (fds[0].revents & POLLIN) pass_on_signals();
    // Before reaping: a zombie still says how it died (a tick ends with it).
    if (due)
      tree.tick();
    else
      tree.handle_ended();
    // The command's end wakes the loop through its pidfd; orphans that came
    // back to us are reaped every kSlowEvery turns (a waitid every tick was
    // one of the few system calls left in an idle tick).
    guard.publish(child, tree.live());
    bool child_ended = child_fd < 0 || (fds[1].revents & POLLIN);
    bool slow_turn = ++turns % kSlowEvery == 0;
    if (slow_turn) follow_forks();
    if ((child_ended || slow_turn) && reap_others(child)) return false;
    if (kill_when_due()) {
      kill_late(child);
      killed_after = true;
    }
    if (o.timeout_s > 0 && !r.aborted &&
        std::chrono::steady_clock::now() - started > std::chrono::duration<double>(o.timeout_s)) {
      r.aborted = true;
      killed = tree.live();
      for (pid_t p : killed) kill(p, SIGKILL);
      kill(child, SIGKILL);
    }
    return true;
  });
  run_stage("command's end seen");
  if (r.end_ns == 0) r.end_ns = realtime_ns();
  if (child_fd >= 0) close(child_fd);
  // Interrupted: the rest of the tree has until --kill-after to end, as the command had.
  if (r.interrupted) {
    tree.tick();
    pollfd fds[2] = {{tree.wait_fd(), POLLIN, 0}, {signals.fd(), POLLIN, 0}};
    sampling_loop(
        ticker, fds, 2, [&] { return !tree.live().empty() && !killed_after; },
        [&](int, bool due) {
          pass_on_signals();
          if (due) tree.tick();
          tree.handle_ended();
          guard.publish(child, tree.live());
          reap_others(child);
          killed_after = kill_when_due();
          return true;
        });
  }
  // What --timeout or --kill-after killed dies within moments: record it before returning.
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
       (r.aborted || killed_after) && !tree.all_ended(killed) &&
       std::chrono::steady_clock::now() < deadline;) {
    pollfd p{tree.wait_fd(), POLLIN, 0};
    poll(&p, 1, 10);
    tree.handle_ended();
  }
  r.killed_after = killed_late.size();
  size_t running = tree.settle();
  follow_forks();
  tree.pair_unnamed_images();  // every fork of the tree is known now
  // Its rusage holds the CPU of every process it and its descendants waited
  // for: also of those without the shim, which no record shows.
  run_stage("tree settled");
  rusage usage{};
  wait4(child, &r.status, 0, &usage);
  r.waited_cpu_ns = timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime);
  r.waited_max_rss_bytes = uint64_t(usage.ru_maxrss) * 1024;
  reap_others(-1);
  r.processes = tree.processes_seen();
  r.processes_without_shim = tree.processes_without_shim();
  r.lost_image_files = tree.lost_image_files();
  r.peaks = tree.peaks();
  r.own_cpu_ns = process_cpu_now_ns() - cpu_at_start;
  r.tree_end_ns = std::max(r.end_ns, tree.last_end_ns());
  if (cgroup) r.cgroup = cgroup->peaks();
  std::string tree_error;
  if (running > 0) {
    r.lingering = true;
    r.running.assign(tree.live().begin(), tree.live().end());
    linger(tree, cgroup.get(), o, path, r, run, signals, temporary);
  } else {
    tree.remove_image_dir();
    tree_error = write_tree_record(path, tree_record(o, r, run));
  }
  run_stage("tree record written");
  // Lost so far: the images', the sampler's and the tree record (a lingering
  // sampler's losses come after account run has answered).
  r.records_lost = tree.records_lost() + !tree_error.empty();
  if (tree.first_write_error() != 0)
    r.write_error = std::strerror(tree.first_write_error());
  else
    r.write_error = tree_error;
  return r;
}

}  // namespace account
