// parse_record and RecordParser: required keys, types, unknown keys ignored.
#include "record.h"

#include <gtest/gtest.h>

#include "golden.h"

namespace account {
namespace {

const char* kProcess =
    R"({"schema":1,"kind":"process","pid":42,"ppid":1,"exe":"/usr/bin/git","argv":["git","add"],)"
    R"("test":"t","op":"add","start_ns":10,"end_ns":20,"cpu_user_s":0.5,"cpu_sys_s":0.25,)"
    R"("malloc_bytes":100,"malloc_calls":2,"free_calls":1,"copied_bytes":300,"copied_calls":3,)"
    R"("heap_peak_bytes":50,"vm_peak_bytes":4096,"rss_peak_bytes":2048,)"
    R"("sampled_size_peak_bytes":4000,"sampled_rss_peak_bytes":2000,"samples":7,"end":"exit",)"
    R"("exit_code":3})";

std::string with(std::string line, const std::string& from, const std::string& to) {
  size_t at = line.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) line.replace(at, from.size(), to);
  return line;
}

std::string reason_of(const std::string& line) {
  std::string reason;
  EXPECT_FALSE(parse_record(line, &reason).has_value()) << line;
  std::string again;
  RecordParser parser;
  EXPECT_FALSE(parser.parse(line, &again).has_value());
  EXPECT_EQ(reason, again);
  return reason;
}

TEST(Record, ProcessFields) {
  std::string reason;
  auto r = parse_record(kProcess, &reason);
  ASSERT_TRUE(r) << reason;
  const auto& p = std::get<ProcessRecord>(*r);
  EXPECT_EQ(p.pid, 42);
  EXPECT_EQ(p.argv, (std::vector<std::string>{"git", "add"}));
  EXPECT_EQ(p.cpu_user_s, 0.5);
  EXPECT_EQ(p.vm_peak_bytes, 4096u);
  EXPECT_EQ(p.end, "exit");
  EXPECT_EQ(p.exit_code, 3);
  EXPECT_FALSE(p.signal.has_value());
}

TEST(Record, TimelineColumns) {
  std::string line =
      with(kProcess, R"("exit_code":3})",
           R"("exit_code":3,"timeline":{"interval_ms":5,"t_ms":[0,5.5,10],"size":[4096,8192,8192],)"
           R"("rss":[1024,2048,1536],"malloc_bytes":[0,1,2]}})");
  std::string reason;
  auto r = parse_record(line, &reason);
  ASSERT_TRUE(r) << reason;
  const auto& t = std::get<ProcessRecord>(*r).timeline;
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->t_ms, (std::vector<double>{0, 5.5, 10}));
  EXPECT_EQ(t->size_bytes, (std::vector<uint64_t>{4096, 8192, 8192}));
  EXPECT_EQ(t->rss_bytes, (std::vector<uint64_t>{1024, 2048, 1536}));
  EXPECT_FALSE(std::get<ProcessRecord>(*parse_record(kProcess, &reason)).timeline.has_value());
  EXPECT_EQ(reason_of(with(line, "[1024,2048,1536]", "[1024,2048]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
  EXPECT_EQ(reason_of(with(line, "[1024,2048,1536]", "[1024,\"x\",1536]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
  EXPECT_EQ(reason_of(with(line, "[1024,2048,1536]", "[1024,-2048,1536]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
  EXPECT_EQ(reason_of(with(line, "[0,5.5,10]", "[0,1e999,10]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
  // Found by fuzz_record: a byte count beyond 2^64 (undefined to convert).
  EXPECT_EQ(reason_of(with(line, "[1024,2048,1536]", "[1024,7.7e92,1536]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
  EXPECT_EQ(reason_of(with(line, "[1024,2048,1536]", "[1024,18446744073709551616.0,1536]")),
            "\"timeline\" is not an object of non-negative number columns of equal length (t_ms, "
            "size, rss)");
}

TEST(Record, UnknownKeysAreIgnored) {
  std::string line =
      with(kProcess, R"("exit_code":3})",
           R"("exit_code":3,"timeline":{"t_ms":[0,5],"rss":[1,2]},"backtraces":[{"n":1}]})");
  RecordParser parser;
  std::string reason;
  auto r = parser.parse(line, &reason);
  ASSERT_TRUE(r) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*r).copied_bytes, 300u);
}

TEST(Record, ParserIsReusableAcrossLines) {
  RecordParser parser;
  std::string reason;
  for (int i = 0; i < 100; ++i) {
    auto r = parser.parse(with(kProcess, "\"pid\":42", "\"pid\":" + std::to_string(i)), &reason);
    ASSERT_TRUE(r) << reason;
    EXPECT_EQ(std::get<ProcessRecord>(*r).pid, i);
    EXPECT_FALSE(parser.parse("{", &reason));
  }
}

TEST(Record, Tree) {
  std::string reason;
  auto r = parse_record(
      R"({"schema":1,"kind":"tree","test":"t","op":"o","run":2,"start_ns":5,"end_ns":9,)"
      R"("processes":3,"sampled_size_peak_bytes":100,"sampled_rss_peak_bytes":50,"samples":4,)"
      R"("exit_code":0,"aborted":false,"future_key":[1]})",
      &reason);
  ASSERT_TRUE(r) << reason;
  const auto& t = std::get<TreeRecord>(*r);
  EXPECT_EQ(t.run, 2u);
  EXPECT_EQ(t.sampled_size_peak_bytes, 100u);
}

// sampled_rss_anon_peak_bytes (Release 2) is optional: older records read as 0.
TEST(Record, AnonPeakIsOptional) {
  std::string reason;
  auto without = parse_record(kProcess, &reason);
  ASSERT_TRUE(without) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*without).sampled_rss_anon_peak_bytes, 0u);
  auto with_key = parse_record(
      with(kProcess, R"("samples":7)", R"("sampled_rss_anon_peak_bytes":1536,"samples":7)"),
      &reason);
  ASSERT_TRUE(with_key) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*with_key).sampled_rss_anon_peak_bytes, 1536u);
  EXPECT_EQ(std::get<ProcessRecord>(*with_key).sampled_rss_peak_bytes, 2000u);

  const std::string tree =
      R"({"schema":1,"kind":"tree","test":"t","op":"o","start_ns":5,"end_ns":9,"processes":3,)"
      R"("sampled_size_peak_bytes":100,"sampled_rss_peak_bytes":50})";
  auto tree_without = parse_record(tree, &reason);
  ASSERT_TRUE(tree_without) << reason;
  EXPECT_EQ(std::get<TreeRecord>(*tree_without).sampled_rss_anon_peak_bytes, 0u);
  RecordParser parser;
  auto tree_with = parser.parse(with(tree, "}", R"(,"sampled_rss_anon_peak_bytes":40})"), &reason);
  ASSERT_TRUE(tree_with) << reason;
  EXPECT_EQ(std::get<TreeRecord>(*tree_with).sampled_rss_anon_peak_bytes, 40u);

  // Present, it is checked like the other byte counts.
  EXPECT_EQ(reason_of(with(kProcess, R"("samples":7)",
                           R"("sampled_rss_anon_peak_bytes":-1,"samples":7)")),
            "\"sampled_rss_anon_peak_bytes\" is not a non-negative integer");
  EXPECT_EQ(reason_of(with(tree, "}", R"(,"sampled_rss_anon_peak_bytes":"40"})")),
            "\"sampled_rss_anon_peak_bytes\" is not a non-negative integer");
}

// host (Release 2, issue 15) is optional: records without it read as
// before, with an empty host; present, it must be a string.
TEST(Record, HostIsOptional) {
  std::string reason;
  auto without = parse_record(kProcess, &reason);
  ASSERT_TRUE(without) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*without).host, "");
  EXPECT_EQ(std::get<ProcessRecord>(*without).pid, 42);
  RecordParser parser;
  auto with_key = parser.parse(
      with(kProcess, R"("kind":"process",)", R"("kind":"process","host":"ci-runner-7",)"), &reason);
  ASSERT_TRUE(with_key) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*with_key).host, "ci-runner-7");
  EXPECT_EQ(std::get<ProcessRecord>(*with_key).pid, 42);

  const std::string tree =
      R"({"schema":1,"kind":"tree","test":"t","op":"o","start_ns":5,"end_ns":9,"processes":3,)"
      R"("sampled_size_peak_bytes":100,"sampled_rss_peak_bytes":50})";
  auto tree_without = parser.parse(tree, &reason);
  ASSERT_TRUE(tree_without) << reason;
  EXPECT_EQ(std::get<TreeRecord>(*tree_without).host, "");
  auto tree_with = parse_record(with(tree, "}", R"(,"host":"load-gen"})"), &reason);
  ASSERT_TRUE(tree_with) << reason;
  EXPECT_EQ(std::get<TreeRecord>(*tree_with).host, "load-gen");
  EXPECT_EQ(std::get<TreeRecord>(*tree_with).processes, 3u);

  EXPECT_EQ(reason_of(with(kProcess, R"("kind":"process",)", R"("kind":"process","host":7,)")),
            "\"host\" is not a string");
  EXPECT_EQ(reason_of(with(tree, "}", R"(,"host":null})")), "\"host\" is not a string");
}

TEST(Record, Reasons) {
  EXPECT_EQ(reason_of("not json"), "not JSON (syntax error)");
  EXPECT_EQ(reason_of(R"({"schema":1,)"), "not JSON (incomplete JSON)");
  EXPECT_EQ(reason_of("[1]"), "not a JSON object");
  EXPECT_EQ(reason_of(with(kProcess, "\"schema\":1", "\"schema\":2")), "unknown schema 2");
  EXPECT_EQ(reason_of(with(kProcess, "\"schema\":1,", "")), "missing key \"schema\"");
  EXPECT_EQ(reason_of(with(kProcess, "\"exe\":\"/usr/bin/git\",", "")), "missing key \"exe\"");
  EXPECT_EQ(reason_of(with(kProcess, "\"pid\":42", "\"pid\":\"42\"")), "\"pid\" is not an integer");
  EXPECT_EQ(reason_of(with(kProcess, "\"vm_peak_bytes\":4096", "\"vm_peak_bytes\":-1")),
            "\"vm_peak_bytes\" is not a non-negative integer");
  EXPECT_EQ(reason_of(with(kProcess, "[\"git\",\"add\"]", "[\"git\",1]")),
            "\"argv\" is not an array of strings");
  EXPECT_EQ(reason_of(with(kProcess, "\"end\":\"exit\"", "\"end\":\"gone\"")),
            "\"end\" is \"gone\", not exit, exec, signal, killed or running");
  EXPECT_EQ(reason_of(with(kProcess, "\"kind\":\"process\"", "\"kind\":\"thread\"")),
            "unknown kind \"thread\"");
  EXPECT_EQ(reason_of(with(kProcess, "}", "} x")), "not JSON (extra data)");
}

// Issue 33 point 7: seconds are never negative and never infinite (1e999 parses
// as infinity), as byte counts are never negative.
TEST(Record, NegativeOrNonFiniteSecondsAreBadLines) {
  EXPECT_EQ(reason_of(with(kProcess, "\"cpu_user_s\":0.5", "\"cpu_user_s\":-1")),
            "\"cpu_user_s\" is not a non-negative finite number");
  EXPECT_EQ(reason_of(with(kProcess, "\"cpu_sys_s\":0.25", "\"cpu_sys_s\":1e999")),
            "\"cpu_sys_s\" is not a non-negative finite number");
  EXPECT_EQ(reason_of(with(kProcess, "\"cpu_sys_s\":0.25", "\"cpu_sys_s\":-1e999")),
            "\"cpu_sys_s\" is not a non-negative finite number");
  EXPECT_EQ(reason_of(with(kProcess, "\"cpu_user_s\":0.5", "\"cpu_user_s\":\"0.5\"")),
            "\"cpu_user_s\" is not a non-negative finite number");
  std::string reason;
  auto zero = parse_record(with(kProcess, "\"cpu_user_s\":0.5", "\"cpu_user_s\":0"), &reason);
  ASSERT_TRUE(zero) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*zero).cpu_user_s, 0.0);
}

}  // namespace
}  // namespace account

namespace account {
namespace {

// account watch writes "end": "running" when it is stopped before the process ends.
TEST(Record, WatchStoppedWhileRunning) {
  std::string reason;
  auto r =
      parse_record(with(kProcess, R"("end":"exit","exit_code":3)", R"("end":"running")"), &reason);
  ASSERT_TRUE(r) << reason;
  EXPECT_EQ(std::get<ProcessRecord>(*r).end, "running");
  EXPECT_FALSE(std::get<ProcessRecord>(*r).exit_code);
}

// Many lines with long timelines through one parser: its arena must not grow
// from line to line (it threw bad_alloc after 36 lines of 2,000 samples).
TEST(Record, OneParserReadsManyLongTimelines) {
  std::string line = kProcess;
  std::string tl = ",\"timeline\":{\"t_ms\":[";
  for (int i = 0; i < 2000; ++i) tl += (i ? "," : "") + std::to_string(i * 5);
  tl += "],\"rss\":[";
  for (int i = 0; i < 2000; ++i) tl += (i ? "," : "") + std::to_string(1048576 + i);
  tl += "]}}";
  line.replace(line.rfind('}'), 1, tl);
  RecordParser parser;
  for (int n = 0; n < 200; ++n) {
    std::string reason;
    std::optional<Record> r = parser.parse(line, &reason);
    ASSERT_TRUE(r) << n << ": " << reason;
    ASSERT_EQ(std::get<ProcessRecord>(*r).timeline->rss_bytes.back(), 1048576u + 1999) << n;
  }
}

}  // namespace
}  // namespace account
