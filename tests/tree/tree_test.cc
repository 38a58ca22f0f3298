// account run's tree record: concurrent peaks of the summed tree.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "fake_proc.h"
#include "image_file.h"
#include "records.h"
#include "run_program.h"
#include "shim_run.h"
#include "tree_sampler.h"

namespace account::testing {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

ProgramOptions hold_options() {
  ProgramOptions o;
  o.env["HOLD"] = std::string(TREE_PROGRAMS_DIR) + "/hold_memory";
  return o;
}

TreeRecord run_tree(const std::string& script, const std::string& path) {
  auto r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", path, "--test", "tree", "--op", "hold",
                        "--", "sh", "-c", script},
                       hold_options());
  EXPECT_EQ(r.status, 0) << r.err;
  RecordFile f = read_records(path);
  EXPECT_TRUE(f.bad_lines.empty());
  EXPECT_EQ(f.trees.size(), 1u);
  return f.trees.empty() ? TreeRecord{} : f.trees[0];
}

// An image that ended before the tree sampler's first look (a command
// shorter than one tick) is still one process of the tree: the run
// directory's watch saw its image file come and go. An image that wrote its
// own record removes its file itself, so the sampler spends no system call on it.
TEST(TreeSampling, AnImageEndedBeforeTheFirstTickIsCounted) {
  TempDir dir;
  std::string images = dir.file("images");
  std::filesystem::create_directory(images);
  TreeSampler tree(getpid(), images);  // watching, as account run's is before the command
  ShimRun run = run_with_shim(dir, {"/bin/true"}, {{"ACCOUNT_RUN_DIR", images}}, 1);
  ASSERT_EQ(run.result.status, 0) << run.result.err;
  ASSERT_EQ(run.records.processes.size(), 1u) << dump(run);  // it wrote its own record
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(images), {}), 0);

  tree.tick();  // the image is long gone and reaped
  EXPECT_EQ(tree.processes_seen(), 1u);
  EXPECT_EQ(tree.live_processes(), 0u);
  EXPECT_EQ(tree.records_written(), 0u);  // its record is its own, not the sampler's
  tree.tick();                            // a later tick does not count it again
  EXPECT_EQ(tree.processes_seen(), 1u);
}

pid_t fork_sleeper() {
  pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

// A sleeping child forked by a second thread, which stays alive (so the child
// stays that thread's) until the object goes; then the child is killed.
class ChildOfAnotherThread {
 public:
  ChildOfAnotherThread()
      : thread_([this] {
          std::unique_lock<std::mutex> lock(m_);
          pid_ = fork_sleeper();
          forked_ = true;
          cv_.notify_all();
          cv_.wait(lock, [this] { return done_; });
        }) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [this] { return forked_; });
  }
  ~ChildOfAnotherThread() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool forked_ = false, done_ = false;
  pid_t pid_ = 0;
  std::thread thread_;  // last: started once the rest is set up
};

// A file in the run directory that is not yet an image file (its image is
// between creating it and setting it up) is decided when its process ends:
// still not set up, the image was killed there and the sampler writes its
// record; gone, the image set itself up, wrote its own record and removed
// the file since the sampler's last look, and the sampler writes none.
TEST(TreeSampling, AFileNotSetUpIsDecidedWhenItsProcessEnds) {
  for (bool removed_since : {false, true}) {
    SCOPED_TRACE(removed_since ? "removed since" : "still not set up");
    TempDir dir;
    std::string images = dir.file("images");
    std::filesystem::create_directory(images);
    std::string output = dir.file("r.jsonl");
    ImageInfo fallback;
    fallback.settings.has_output = true;
    std::snprintf(fallback.settings.output, sizeof fallback.settings.output, "%s", output.c_str());
    TreeSampler tree(getpid(), images, &fallback);
    pid_t child = fork_sleeper();
    ASSERT_GT(child, 0);
    std::string file = images + "/" + std::to_string(child) + "-" + std::to_string(getpid()) + "-1";
    std::ofstream{file};  // created, not set up: empty
    tree.tick();
    if (removed_since) std::filesystem::remove(file);
    kill(child, SIGKILL);
    siginfo_t info{};
    ASSERT_EQ(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);  // a zombie, unreaped
    tree.handle_ended();  // no tick: the watch is not read, the file is looked for
    EXPECT_EQ(tree.live_processes(), 0u);
    RecordFile f = read_records(output);
    if (removed_since) {
      EXPECT_EQ(tree.records_written(), 0u);
      EXPECT_TRUE(f.processes.empty());
    } else {
      EXPECT_EQ(tree.records_written(), 1u);
      ASSERT_EQ(f.processes.size(), 1u);
      EXPECT_EQ(f.processes[0].pid, child);
      EXPECT_EQ(f.processes[0].end, "killed");
      EXPECT_EQ(f.processes[0].signal, SIGKILL);
      EXPECT_EQ(f.processes[0].written_by, "sampler");
    }
    waitpid(child, nullptr, 0);
  }
}

// A process without an image file is met at its second sighting: one that
// lives less than a tick (most of a script's, between their fork and their
// image file) costs the sampler no system call. Sighted, it is one of the
// tree's and live (signals reach it), but not read yet, so the tree's sums
// start with its second tick; settle(), the last look, meets it at once.
TEST(TreeSampling, AProcessWithoutAnImageFileIsReadFromItsSecondSighting) {
  TreeSampler tree(getpid());
  pid_t child = fork_sleeper();
  ASSERT_GT(child, 0);
  auto live = [&] {
    return std::find(tree.live().begin(), tree.live().end(), child) != tree.live().end();
  };
  tree.tick();
  EXPECT_EQ(tree.processes_seen(), 1u);
  EXPECT_TRUE(live());
  EXPECT_EQ(tree.live_processes(), 1u);
  EXPECT_EQ(tree.peaks().size_bytes, 0u);  // not read
  tree.tick();
  EXPECT_TRUE(live());
  EXPECT_GT(tree.peaks().size_bytes, kMiB);  // a copy of this test program
  EXPECT_EQ(tree.processes_seen(), 1u);

  TreeSampler last(getpid());
  EXPECT_EQ(last.settle(), 1u);
  EXPECT_GT(last.peaks().size_bytes, kMiB);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

// Ticks that need no image read none: here a steady tree, while images of
// short commands come and go between ticks (counted at the latest at the
// kSlowEvery-th tick, here at the last look). A process that execs is
// followed at the next tick: that tick reads the watch, and the new image's
// own record (the sampler's, once it is killed) has the tick's sample.
TEST(TreeImages, ReadWhenATickNeedsThemAnExecAtTheNextTick) {
  TempDir dir;
  std::string images = dir.file("images");
  std::filesystem::create_directory(images);
  std::string output = dir.file("r.jsonl");
  std::vector<std::string> env_text{"PATH=/usr/bin:/bin", "LD_PRELOAD=" ACCOUNT_SHIM_PATH,
                                    "ACCOUNT_RUN_DIR=" + images, "ACCOUNT_OUTPUT=" + output};
  std::vector<char*> envp;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  TreeSampler tree(getpid(), images);
  pid_t child = fork();
  if (child == 0) {
    dup2(go[0], 0);
    const char* argv[] = {"sh", "-c", "read x; exec sleep 30", nullptr};
    execve("/bin/sh", const_cast<char**>(argv), envp.data());
    _exit(127);
  }
  ASSERT_GT(child, 0);
  close(go[0]);
  auto files = [&] {
    std::vector<std::string> names;
    for (auto& e : std::filesystem::directory_iterator(images))
      names.push_back(e.path().filename());
    return names;
  };
  auto wait_for = [&](auto done) {
    for (int i = 0; i < 500 && !done(); ++i) usleep(10000);
    return done();
  };
  // The one image file there, once its image has set it up: a file still
  // being set up makes every tick look again (a busy machine can stretch its
  // setup over the first ticks).
  auto set_up_file = [&]() -> std::string {
    std::vector<std::string> now = files();
    if (now.size() != 1) return "";
    ImageFileView view;
    uint32_t write_error = 0;
    std::string path = images + "/" + now[0];
    ImageFileLook look = look_at_image_file(path.c_str(), &view, &write_error);
    unmap_image_file(&view);
    return look == ImageFileLook::kMapped ? now[0] : "";
  };
  ASSERT_TRUE(wait_for([&] { return !set_up_file().empty(); }));
  std::string sh_file = files()[0];
  for (int i = 0; i < 4; ++i) tree.tick();  // the first ticks look; sh met and insured
  ASSERT_EQ(tree.live().size(), 1u);
  uint64_t looks = tree.image_looks();
  for (int i = 0; i < 3; ++i) {
    ShimRun run = run_with_shim(dir, {"/bin/true"}, {{"ACCOUNT_RUN_DIR", images}}, 1);
    ASSERT_EQ(run.result.status, 0) << run.result.err;
    tree.tick();
  }
  EXPECT_EQ(tree.image_looks(), looks);  // ticks 5-7: nothing needed
  EXPECT_EQ(tree.processes_seen(), 1u);  // the trues not counted yet

  ASSERT_EQ(write(go[1], "x\n", 2), 2);  // sh execs sleep
  ASSERT_TRUE(wait_for([&] {
    std::string now = set_up_file();
    return !now.empty() && now != sh_file;
  }));
  tree.tick();
  EXPECT_EQ(tree.image_looks(), looks + 1);
  kill(child, SIGKILL);
  siginfo_t info{};
  ASSERT_EQ(waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT), 0);
  tree.handle_ended();
  EXPECT_EQ(tree.live_processes(), 0u);
  EXPECT_EQ(tree.records_written(), 1u);
  RecordFile f = read_records(output);
  std::vector<ProcessRecord> mine = records_of_pid(f, child);
  ASSERT_EQ(mine.size(), 2u);
  EXPECT_EQ(mine[0].end, "exec");
  EXPECT_EQ(mine[0].written_by, "process");
  EXPECT_EQ(mine[1].end, "killed");
  EXPECT_EQ(mine[1].written_by, "sampler");
  EXPECT_EQ(mine[1].samples, 1u);  // the tick after the exec
  close(go[1]);
  waitpid(child, nullptr, 0);
  tree.settle();
  EXPECT_EQ(tree.processes_seen(), 4u);  // sh and the three trues
}

// A child of the main thread and a child forked by another thread: both are
// children of the process, whether it has one thread or two.
TEST(TreeChildren, OfTheMainThreadAndOfAnotherThread) {
  auto sorted = [](std::vector<pid_t> v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  pid_t first = fork_sleeper();
  ASSERT_GT(first, 0);
  EXPECT_EQ(children_of(getpid()), std::vector<pid_t>{first});  // one thread: one file read
  {
    ChildOfAnotherThread second;
    ASSERT_GT(second.pid(), 0);
    EXPECT_EQ(sorted(children_of(getpid())), sorted({first, second.pid()}));
  }
  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  EXPECT_TRUE(children_of(getpid()).empty());
  EXPECT_TRUE(children_of(999999999).empty());  // no such process
}

// The tree sampler reads a process's main thread's children every tick and
// every thread's every kSlowEvery ticks: a child (here without the shim, so
// no image file announces it) forked by another thread joins the walk within
// kSlowEvery ticks, and is not lost.
TEST(TreeChildren, AnotherThreadsChildWalkedWithinKSlowEveryTicks) {
  TreeSampler tree(getpid());
  tree.tick();  // the root's children file is open and its threads looked at
  ChildOfAnotherThread child;
  ASSERT_GT(child.pid(), 0);
  auto walked = [&] {
    const std::vector<pid_t>& live = tree.live();
    return std::find(live.begin(), live.end(), child.pid()) != live.end();
  };
  uint64_t ticks = 0;
  while (ticks < 2 * kSlowEvery && !walked()) {
    tree.tick();
    ++ticks;
  }
  EXPECT_TRUE(walked());
  EXPECT_LE(ticks, kSlowEvery);
}

// A child of this test that has `sleepers` sleeping children of its own,
// and forks one more each time it is asked; all are killed when it goes.
class ParentOfSleepers {
 public:
  explicit ParentOfSleepers(int sleepers) {
    if (pipe(ask_) != 0 || pipe(done_) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      char c = 0;
      for (int i = 0; i < sleepers; ++i) fork_sleeper();
      if (write(done_[1], &c, 1) != 1) _exit(1);
      while (read(ask_[0], &c, 1) == 1) {
        fork_sleeper();
        if (write(done_[1], &c, 1) != 1) _exit(1);
      }
      _exit(0);
    }
    char c;
    if (read(done_[0], &c, 1) != 1) pid_ = -1;
  }
  ~ParentOfSleepers() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    for (int fd : {ask_[0], ask_[1], done_[0], done_[1]}) close(fd);
  }
  pid_t pid() const { return pid_; }
  // Forks one more sleeper and returns once it exists.
  void fork_another() {
    char c = 1;
    ASSERT_EQ(write(ask_[1], &c, 1), 1);
    ASSERT_EQ(read(done_[0], &c, 1), 1);
  }

 private:
  pid_t pid_ = -1;
  int ask_[2] = {-1, -1};
  int done_[2] = {-1, -1};
};

// While no pid is handed out, nothing in the tree can have forked: the walk
// reuses each process's last list of children and reads it again (every
// thread's) only every kSlowEvery ticks. A pid handed out makes every tick
// read them all.
TEST(TreeChildren, ReadAgainOnlyWhenAPidWasHandedOutOrEveryKSlowEveryTicks) {
  LastPidSays proc;
  ParentOfSleepers parent(2);
  ASSERT_GT(parent.pid(), 0);
  TreeSampler tree(getpid(), "", nullptr, proc);
  for (int i = 0; i < 6; ++i) tree.tick();  // sighted, met, insured and read: all three
  ASSERT_EQ(tree.live().size(), 3u);

  uint64_t before = tree.children_reads();
  for (uint64_t i = 0; i < 2 * kSlowEvery; ++i) {
    tree.tick();
    ASSERT_EQ(tree.live().size(), 3u);  // still walked: the lists are reused
  }
  EXPECT_EQ(tree.children_reads() - before, 3u * 2);  // twice each in 2 * kSlowEvery ticks

  before = tree.children_reads();
  for (uint64_t i = 0; i < 2 * kSlowEvery; ++i) {
    ++proc.pid;
    tree.tick();
  }
  EXPECT_EQ(tree.children_reads() - before, 3u * 2 * kSlowEvery);
}

// A child forked while the last pid says nothing was (a container's
// /proc/loadavg that never moves) is found within kSlowEvery ticks all the
// same; with the pid handed out, at the next tick.
TEST(TreeChildren, AChildForkedInASteadyTreeIsFound) {
  LastPidSays proc;
  ParentOfSleepers parent(1);
  ASSERT_GT(parent.pid(), 0);
  TreeSampler tree(getpid(), "", nullptr, proc);
  for (int i = 0; i < 6; ++i) tree.tick();
  ASSERT_EQ(tree.live().size(), 2u);

  parent.fork_another();  // the fake last pid does not move
  uint64_t ticks = 0;
  while (ticks < 2 * kSlowEvery && tree.live().size() < 3) {
    tree.tick();
    ++ticks;
  }
  EXPECT_EQ(tree.live().size(), 3u);
  EXPECT_LE(ticks, kSlowEvery);

  for (int i = 0; i < 3; ++i) tree.tick();  // the third met and insured
  parent.fork_another();
  ++proc.pid;
  tree.tick();
  EXPECT_EQ(tree.live().size(), 4u);  // sighted at once
}

TEST(TreeSampling, ConcurrentChildrenAddUp) {
  TempDir dir;
  TreeRecord t =
      run_tree("$HOLD 50 400 >/dev/null & $HOLD 50 400 >/dev/null & $HOLD 50 400 >/dev/null & wait",
               dir.file("r.jsonl"));
  EXPECT_GE(t.sampled_rss_peak_bytes, 150 * kMiB);
  EXPECT_GE(t.processes, 4u);  // sh and three children
  EXPECT_EQ(t.test, "tree");
  EXPECT_EQ(t.op, "hold");
  EXPECT_EQ(t.exit_code, 0);
  EXPECT_FALSE(t.aborted);
  // sh, its three fork children (each ends by exec) and the three programs.
  RecordFile f = read_records(dir.file("r.jsonl"));
  EXPECT_EQ(f.processes.size(), 7u);
  EXPECT_EQ(records_of(f, "hold_memory").size(), 3u);
  size_t execs = 0;
  for (auto& p : f.processes) execs += p.end == "exec";
  EXPECT_EQ(execs, 3u);
}

TEST(TreeSampling, SequentialChildrenDoNot) {
  TempDir dir;
  TreeRecord t =
      run_tree("$HOLD 50 150 >/dev/null; $HOLD 50 150 >/dev/null; $HOLD 50 150 >/dev/null",
               dir.file("r.jsonl"));
  EXPECT_GE(t.sampled_rss_peak_bytes, 50 * kMiB);
  EXPECT_LT(t.sampled_rss_peak_bytes, 100 * kMiB);
}

TEST(TreeSampling, TimeoutKillsTheTreeAndMarksTheRunAborted) {
  TempDir dir;
  auto start = std::chrono::steady_clock::now();
  auto r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", dir.file("r.jsonl"), "--timeout",
                        "0.3", "--", "sh", "-c", "sleep 30 & sleep 30; echo never"});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 128 + 9);
  EXPECT_EQ(r.out, "");
  EXPECT_LT(seconds, 5.0);
  RecordFile f = read_records(dir.file("r.jsonl"));
  ASSERT_EQ(f.trees.size(), 1u);
  EXPECT_TRUE(f.trees[0].aborted);
  EXPECT_EQ(f.trees[0].signal, 9);
  // sh and both sleeps were killed and recorded by their samplers.
  size_t killed = 0;
  for (auto& p : f.processes) killed += p.end == "killed";
  EXPECT_EQ(killed, 3u);
}

// The tree sampler lets its ticks come late through its thread's timer slack;
// the command, spawned before the first wait, and the next run's command,
// spawned after the Ticker is gone, keep the slack account run started with.
TEST(TreeSampling, TheCommandKeepsItsTimerSlack) {
  TempDir dir;
  std::string own;
  std::getline(std::ifstream("/proc/self/timerslack_ns"), own);
  ASSERT_FALSE(own.empty());
  auto r = run_program({ACCOUNT_CLI_PATH, "run", "-q", "-o", dir.file("r.jsonl"), "--repeat", "2",
                        "--", "sh", "-c", "cat /proc/self/timerslack_ns; sleep 0.05"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, own + "\n" + own + "\n");
}

}  // namespace
}  // namespace account::testing
