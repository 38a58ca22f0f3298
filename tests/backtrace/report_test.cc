// account report --backtraces as a library: parsing the record keys and the
// text, with a symbolizer that answers from a table.
#include <gtest/gtest.h>

#include "backtrace_report.h"

namespace account::testing {
namespace {

class TableSymbolizer : public Symbolizer {
 public:
  std::vector<SymbolizedFrame> resolve(const std::string& path,
                                       const std::vector<uint64_t>& addresses) override {
    ++calls;
    std::vector<SymbolizedFrame> out;
    for (uint64_t a : addresses) {
      asked.push_back(path + "@" + std::to_string(a));
      if (path == "/bin/prog" && a == 0x10ff)
        out.push_back({"ns::big()", "prog.cc:12"});
      else if (path == "/bin/prog" && a == 0x11ff)
        out.push_back({"main", ""});
      else
        out.push_back({});
    }
    return out;
  }
  int calls = 0;
  std::vector<std::string> asked;
};

const char* kLine =
    R"({"schema":1,"kind":"process","pid":42,"exe":"/bin/prog","argv":["prog","-x"],)"
    R"("test":"t","op":"o","backtrace_min":10485760,"backtrace_depth":32,)"
    R"("backtraces":[{"count":1,"bytes":20971520,"largest":20971520,"frames":["0x1100","0x1200"]},)"
    R"({"count":2,"bytes":41943040,"largest":20971520,"frames":["0x1100","0x7f0000000010","0x99"]}],)"
    R"("backtraces_other":{"groups":3,"count":4,"bytes":50331648,"largest":12582912},)"
    R"("backtrace_modules":[{"path":"/bin/prog","base":"0x0","start":"0x1000","end":"0x2000",)"
    R"("build_id":"ab12"},{"path":"/lib/libc.so.6","base":"0x7f0000000000",)"
    R"("start":"0x7f0000000000","end":"0x7f0000100000"}]})";

TEST(BacktraceRecord, ParsesGroupsOtherAndModules) {
  std::string reason;
  auto p = parse_backtraces(kLine, &reason);
  ASSERT_TRUE(p) << reason;
  EXPECT_EQ(p->pid, 42);
  EXPECT_EQ(p->threshold, 10485760u);
  ASSERT_EQ(p->groups.size(), 2u);
  EXPECT_EQ(p->groups[0].count, 2u);  // largest bytes first
  EXPECT_EQ(p->groups[0].frames, (std::vector<uint64_t>{0x1100, 0x7f0000000010, 0x99}));
  ASSERT_TRUE(p->other);
  EXPECT_EQ(p->other->groups, 3u);
  EXPECT_EQ(p->other->bytes, 50331648u);
  ASSERT_EQ(p->modules.size(), 2u);
  EXPECT_EQ(p->modules[0].build_id, "ab12");
  EXPECT_EQ(p->module_of(0x7f0000000010), &p->modules[1]);
  EXPECT_EQ(p->module_of(0x99), nullptr);
}

TEST(BacktraceRecord, NoBacktracesIsNotAnError) {
  std::string reason;
  EXPECT_FALSE(parse_backtraces(R"({"schema":1,"pid":1})", &reason));
  EXPECT_EQ(reason, "");
  EXPECT_FALSE(parse_backtraces(R"({"backtraces":[{"count":1}]})", &reason));
  EXPECT_EQ(reason, "a backtrace group lacks count, bytes or largest");
  EXPECT_FALSE(parse_backtraces("{", &reason));
  EXPECT_NE(reason.find("not JSON"), std::string::npos);
}

TEST(BacktraceReport, LooksUpTheCallNotTheReturnAddress) {
  LoadedModule m{"/lib/x.so", 0x7f0000000000, 0x7f0000000000, 0x7f0000100000, ""};
  EXPECT_EQ(lookup_address(m, 0x7f0000001234), 0x1233u);
}

TEST(BacktraceReport, RendersGroupsLargestFirstWithFrames) {
  std::string reason;
  std::vector<ProcessBacktraces> processes{*parse_backtraces(kLine, &reason)};
  TableSymbolizer symbolizer;
  std::string text = render_backtraces(processes, symbolize(processes, symbolizer));
  EXPECT_EQ(symbolizer.calls, 2);  // one batch per module
  EXPECT_EQ(text,
            "Test t, operation o\n"
            "\n"
            "  pid 42: prog -x\n"
            "  7 allocations of at least 10.00 MiB, 108.00 MiB in 5 call stacks\n"
            "\n"
            "    2 allocations, 40.00 MiB, largest 20.00 MiB\n"
            "      #0  ns::big() (prog+0x1100) prog.cc:12\n"
            "      #1  ?? (libc.so.6+0x10)\n"
            "      #2  ?? (0x99)\n"
            "\n"
            "    1 allocation, 20.00 MiB, largest 20.00 MiB\n"
            "      #0  ns::big() (prog+0x1100) prog.cc:12\n"
            "      #1  main (prog+0x1200)\n"
            "\n"
            "    other: 4 allocations in 3 call stacks not kept in the record, 48.00 MiB, "
            "largest 12.00 MiB\n");
}

TEST(BacktraceReport, ProcessesWithoutLargeAllocationsAreOnlyCounted) {
  std::string reason;
  auto quiet = parse_backtraces(
      R"({"pid":7,"argv":["sh","-c","a\nb"],"test":"t","op":"o","backtrace_min":1,"backtraces":[]})",
      &reason);
  auto busy = parse_backtraces(
      R"({"pid":8,"argv":["sh","-c","a\nb"],"test":"t","op":"o","backtrace_min":1,)"
      R"("backtraces":[],"backtraces_other":{"groups":1,"count":1,"bytes":5,"largest":5}})",
      &reason);
  ASSERT_TRUE(quiet && busy) << reason;
  std::vector<ProcessBacktraces> processes{*quiet, *quiet, *busy};
  EXPECT_EQ(
      render_backtraces(processes, {}),
      "Test t, operation o\n"
      "\n"
      "  pid 8: sh -c a b\n"
      "  1 allocation of at least 1 B, 0.00 MiB in 1 call stack\n"
      "\n"
      "    other: 1 allocation in 1 call stack not kept in the record, 0.00 MiB, largest 5 B\n"
      "\n"
      "  2 other processes traced made no allocation over the threshold\n");
}

// Records of two machines may share pids: each process names its host then
// (and only then: one machine's report reads as before).
TEST(BacktraceReport, NamesTheHostWhenRecordsComeFromSeveral) {
  std::string reason;
  auto of_host = [&](const char* host) {
    std::string line = std::string(R"({"pid":8,"argv":["git"],"test":"t","op":"o",)") +
                       (host ? std::string(R"("host":")") + host + R"(",)" : std::string()) +
                       R"("backtrace_min":1,"backtraces":[],)"
                       R"("backtraces_other":{"groups":1,"count":1,"bytes":5,"largest":5}})";
    auto p = parse_backtraces(line, &reason);
    EXPECT_TRUE(p) << reason;
    return p ? *p : ProcessBacktraces{};
  };
  EXPECT_EQ(of_host("ci-7").host, "ci-7");
  EXPECT_EQ(of_host(nullptr).host, "");
  const char* kRest =
      "  1 allocation of at least 1 B, 0.00 MiB in 1 call stack\n"
      "\n"
      "    other: 1 allocation in 1 call stack not kept in the record, 0.00 MiB, largest 5 B\n";
  EXPECT_EQ(
      render_backtraces({of_host("ci-7"), of_host("ci-7")}, {}),
      std::string("Test t, operation o\n\n  pid 8: git\n") + kRest + "\n  pid 8: git\n" + kRest);
  EXPECT_EQ(render_backtraces({of_host("ci-7"), of_host("ci-9"), of_host(nullptr)}, {}),
            std::string("Test t, operation o\n\n  pid 8 on ci-7: git\n") + kRest +
                "\n  pid 8 on ci-9: git\n" + kRest + "\n  pid 8 on (no host): git\n" + kRest);
}

TEST(BacktraceReport, SaysHowToTurnBacktracesOn) {
  EXPECT_EQ(render_backtraces({}, {}),
            "No backtraces in these records: run with ACCOUNT_BACKTRACE_MIN=SIZE "
            "(account run --backtrace-min SIZE).\n");
}

TEST(BacktraceReport, Demangles) {
  EXPECT_EQ(demangle("_ZN11alloc_paths9big_twiceEv"), "alloc_paths::big_twice()");
  EXPECT_EQ(demangle("main"), "main");
}

}  // namespace
}  // namespace account::testing
