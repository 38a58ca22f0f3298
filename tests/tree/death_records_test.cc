// tree/death_records.h on a fake /proc: the record of an image killed before
// it set up its file, written where the run says, from what /proc tells of
// how it ended; and a record that cannot be written, counted as lost.
#include "death_records.h"

#include <errno.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "fake_proc.h"
#include "image_file.h"

namespace account {
namespace {

struct DeadRun {
  std::string dir;
  ImageInfo fallback;
  FakeProc proc;
  ProcessWatch watch;
  DeadRun() {
    char name[] = "/tmp/death-records-test.XXXXXX";
    dir = mkdtemp(name);
    fallback.settings.has_output = true;
    set_output(dir + "/records.jsonl");
    const char argv[] = "prog\0--flag";
    fallback.identity.set_argv(argv, sizeof argv);
    fallback.identity.argc = 2;
    watch.handle.pid = 4242;
  }
  ~DeadRun() { std::system(("rm -rf " + dir).c_str()); }
  void set_output(const std::string& path) {
    snprintf(fallback.settings.output, sizeof fallback.settings.output, "%s", path.c_str());
  }
  std::string records() const {
    std::ifstream in(dir + "/records.jsonl");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
};

ImageName image_name(pid_t pid, pid_t ppid) {
  ImageName id;
  id.pid = pid;
  id.ppid = ppid;
  id.start_monotonic_ns = 1;
  return id;
}

TEST(DeathRecords, AnImageKilledBeforeItsFileWasSetUpGetsARecordOfNothingCounted) {
  DeadRun run;
  run.proc.stat_file = stat_text('Z', 30, 20, SIGKILL);  // a zombie, killed
  DeathRecords deaths(&run.fallback, run.proc);
  deaths.record_unset(image_name(4242, 4200), &run.watch, true);
  EXPECT_EQ(deaths.written(), 1u);
  EXPECT_EQ(deaths.lost(), 0u);
  std::string line = run.records();
  ASSERT_EQ(std::count(line.begin(), line.end(), '\n'), 1) << line;
  EXPECT_NE(line.find("\"pid\":4242,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"ppid\":4200,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"end\":\"killed\",\"signal\":9,\"written_by\":\"sampler\""),
            std::string::npos)
      << line;
  // The zombie's stat: 30 and 20 clock ticks of CPU, 225 minor faults.
  ASSERT_EQ(sysconf(_SC_CLK_TCK), 100);  // USER_HZ
  EXPECT_NE(line.find("\"cpu_user_s\":0.300000,\"cpu_sys_s\":0.200000,"), std::string::npos)
      << line;
  EXPECT_NE(line.find("\"minor_faults\":225,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"argv\":[\"prog\",\"--flag\"]"), std::string::npos) << line;
  EXPECT_NE(line.find("\"malloc_calls\":0,"), std::string::npos) << line;
}

TEST(DeathRecords, AnExitSeenInTheZombiesStatIsRecordedAsAnExit) {
  DeadRun run;
  run.proc.stat_file = stat_text('Z', 0, 0, 3 << 8);  // exit(3)
  DeathRecords deaths(&run.fallback, run.proc);
  deaths.record_unset(image_name(4242, 4200), &run.watch, true);
  std::string line = run.records();
  EXPECT_NE(line.find("\"exit_code\":3,"), std::string::npos) << line;
  EXPECT_NE(line.find("\"end\":\"exit\""), std::string::npos) << line;
}

TEST(DeathRecords, AnUnwritableOutputIsCountedAsLostWithItsErrno) {
  DeadRun run;
  run.set_output(run.dir + "/no/such/dir/records.jsonl");
  run.proc.stat_file = stat_text('Z', 0, 0, SIGKILL);
  DeathRecords deaths(&run.fallback, run.proc);
  deaths.record_unset(image_name(4242, 4200), &run.watch, true);
  deaths.record_unset(image_name(4243, 4200), &run.watch, true);
  EXPECT_EQ(deaths.written(), 2u);
  EXPECT_EQ(deaths.lost(), 2u);
  EXPECT_EQ(deaths.first_write_error(), ENOENT);
  deaths.count_loss(0);  // no error: nothing lost
  EXPECT_EQ(deaths.lost(), 2u);
}

}  // namespace
}  // namespace account
