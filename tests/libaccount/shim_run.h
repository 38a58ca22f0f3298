/// Running a program under the shim with a record file, for the shim's tests.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "records.h"
#include "run_program.h"

namespace account::testing {

struct ShimRun {
  ProgramResult result;
  RecordFile records;
  std::string output;  // the record file
};

using Env = std::map<std::string, std::optional<std::string>>;

/// The environment of a clean run: every ACCOUNT_* variable of the test's own
/// environment removed (a test may itself run under `account run`), then `env`.
Env clean_env(const Env& env = {});

/// Runs argv with the shim, ACCOUNT_OUTPUT=<dir>/records.jsonl and `env` (which
/// may override ACCOUNT_OUTPUT). Waits up to `settle_s` for `min_records` lines
/// (records written by a sampler arrive after the process is gone).
ShimRun run_with_shim(const TempDir& dir, const std::vector<std::string>& argv, const Env& env = {},
                      size_t min_records = 0, double settle_s = 3);

/// The records of one pid, in file order.
std::vector<ProcessRecord> records_of_pid(const RecordFile& f, int64_t pid);

/// Number of lines of a file (0 when it does not exist).
size_t line_count(const std::string& path);

/// The integer after "key=" in text (the first occurrence), or -1.
long long value_after(const std::string& text, const std::string& key);

/// An integer key of the first record of `pid` in the run's record file, read
/// from the raw line (for keys the record reader does not keep, such as
/// libc_copied_bytes); -1 when the key or the record is absent.
long long record_field(const ShimRun& run, int64_t pid, const std::string& key);

/// The copies the program made through the exported interposers: copied_* minus
/// the libc_copied_* part (the copies glibc makes inside itself).
uint64_t own_copied_bytes(const ShimRun& run, const ProcessRecord& r);
uint64_t own_copied_calls(const ShimRun& run, const ProcessRecord& r);

/// Whole file contents ("" when missing).
std::string slurp(const std::string& path);

/// This machine's name as `uname -n` prints it (without the newline): what
/// every record's "host" must say.
std::string uname_n();

/// A run's status, output and records, for failure messages.
std::string dump(const ShimRun& run);

/// Checks that each pid has any number of "exec" records followed by exactly
/// one record that is not "exec" (one record per process image); returns the
/// number of records.
size_t expect_one_record_per_image(const RecordFile& f, const std::string& context);

/// A program run without and with the shim.
struct Comparison {
  ProgramResult plain;
  ShimRun shim;
};

/// Runs argv without and with the shim, each time in a fresh `work` directory
/// at the same path (so paths in the output are the same).
Comparison run_both(const TempDir& dir, const std::vector<std::string>& argv, const Env& env = {},
                    double timeout_s = 90);

/// Both runs' output and the records, for failure messages.
std::string context(const Comparison& c);

/// The same bytes, the same status, one record per image, with libc's own
/// copies counted (the default); returns the number of records.
size_t expect_same(const Comparison& c);

/// A deterministic git: fixed names, dates, locale, no user or system config.
Env git_env(const TempDir& dir);

}  // namespace account::testing
