// The tree sampler watched from outside (account watch --tree) through a fake
// /proc (fake_tree.h): what its observer is told of each process.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "fake_tree.h"
#include "tree_sampler.h"

namespace account {
namespace {

constexpr uint64_t kMiB = 1024 * 1024;

std::vector<pid_t> sorted(std::vector<pid_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// What account watch --tree hears: every process found, sampled and ended.
class Heard final : public TreeObserver {
 public:
  struct End {
    pid_t pid;
    EndKind kind;
    int code;
    uint64_t size_peak;
  };
  std::vector<pid_t> found;
  std::vector<pid_t> sampled;
  std::vector<End> ended;
  void image_found(pid_t pid, const ProcessWatch&) override { found.push_back(pid); }
  void image_sampled(pid_t pid, const MemoryNow&) override { sampled.push_back(pid); }
  void image_ended(pid_t pid, const ProcessWatch&, const SampledPeaks& peaks,
                   const Ending& ending) override {
    ended.push_back({pid, ending.kind, ending.code, peaks.size_bytes});
  }
  void image_running(pid_t, const ProcessWatch&, const SampledPeaks&) override {}
};

// The watched server, 200 (5 MiB), and its child 201 (10 MiB), watched from outside.
struct WatchedServer {
  FakeTree proc;
  Heard heard;
  TreeSampler tree{200, "", nullptr, proc, proc};
  WatchedServer() {
    proc.fork(0, 200, 5, 2);
    proc.fork(200, 201, 10, 4);
    tree.watch_from_outside(&heard);
  }
};

TEST(TreeWatchFromOutside, TheRootItsChildrenAndOrphansUntilEachEnds) {
  WatchedServer w;
  FakeTree& proc = w.proc;
  Heard& heard = w.heard;
  TreeSampler& tree = w.tree;
  proc.fork(201, 202, 20, 4);
  // From outside nothing waits for a second sighting: all found at once.
  tree.tick();
  EXPECT_EQ(heard.found, (std::vector<pid_t>{200, 201, 202}));
  EXPECT_EQ(sorted(heard.sampled), (std::vector<pid_t>{200, 201, 202}));
  EXPECT_EQ(tree.peaks().size_bytes, 35 * kMiB);
  // 201 is killed and reaped; its child goes to init, out of the root's tree,
  // and is still watched.
  proc.end(201, 9);
  tree.tick();
  ASSERT_EQ(heard.ended.size(), 1u);
  EXPECT_EQ(heard.ended[0].pid, 201);
  EXPECT_EQ(heard.ended[0].kind, EndKind::kKilled);
  EXPECT_EQ(heard.ended[0].code, 9);
  EXPECT_EQ(heard.ended[0].size_peak, 10 * kMiB);
  proc.reap(201, 1);
  heard.sampled.clear();
  tree.tick();
  EXPECT_EQ(sorted(heard.sampled), (std::vector<pid_t>{200, 202}));
  EXPECT_FALSE(tree.root_ended());
  // The root exits 3; the orphan lives on, watched.
  proc.end(200, 3 << 8);
  tree.tick();
  EXPECT_TRUE(tree.root_ended());
  ASSERT_EQ(heard.ended.size(), 2u);
  EXPECT_EQ(heard.ended[1].pid, 200);
  EXPECT_EQ(heard.ended[1].kind, EndKind::kExit);
  EXPECT_EQ(heard.ended[1].code, 3);
  EXPECT_EQ(tree.live_processes(), 1u);
  EXPECT_EQ(heard.found.size(), 3u);  // nobody found twice
}

// A child that ended is recorded once, though its parent has not reaped it
// yet: a later walk meets the zombie again, and the kernel's fork event for
// it, read late, names it again (1 or 2 of 1000 short children, under load,
// were recorded twice). A new process under the same pid is a new one.
TEST(TreeWatchFromOutside, AnEndedChildIsRecordedOnceUntilItsPidIsHandedOutAgain) {
  WatchedServer w;
  FakeTree& proc = w.proc;
  Heard& heard = w.heard;
  TreeSampler& tree = w.tree;
  tree.tick();
  EXPECT_EQ(heard.found, (std::vector<pid_t>{200, 201}));
  proc.end(201, 0);  // a zombie: 200 has not reaped it
  tree.tick();
  ASSERT_EQ(heard.ended.size(), 1u);
  EXPECT_EQ(heard.ended[0].pid, 201);
  tree.adopt(201);  // its fork event, read after its end
  tree.tick();
  tree.tick();
  EXPECT_EQ(heard.found, (std::vector<pid_t>{200, 201}));
  EXPECT_EQ(heard.ended.size(), 1u);
  // Reaped, and the pid handed out again: a new child, found and recorded.
  proc.reap(201, 1);
  proc.fork(200, 201, 7, 3);
  tree.adopt(201);
  EXPECT_EQ(heard.found, (std::vector<pid_t>{200, 201, 201}));
  tree.tick();
  proc.end(201, 0);
  tree.tick();
  ASSERT_EQ(heard.ended.size(), 2u);
  EXPECT_EQ(heard.ended[1].pid, 201);
  EXPECT_EQ(heard.ended[1].size_peak, 7 * kMiB);
}

}  // namespace
}  // namespace account
