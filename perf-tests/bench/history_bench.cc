// history_bench: how well account history's change-point rule (history/
// changes.h, the same call the command makes) finds a step, and how often it
// finds one that is not there. Run by perf-tests/history-bench.sh.
//
// usage: history_bench SERIES COMMITS RUNS NOISE_PCT STEP_PCT SEED
// Prints the detection rate (a change point within ±1 commit of the step),
// the series with a change point elsewhere, and the false alarms in as many
// flat series.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "changes.h"

namespace {

using account::CommitSeries;
using account::Metric;
using account::RunFigures;

CommitSeries generate(std::mt19937_64& random, size_t commits, size_t runs, double noise,
                      double step, size_t at) {
  std::normal_distribution<double> normal(0, noise);
  CommitSeries s(commits);
  for (size_t c = 0; c < commits; ++c)
    for (size_t r = 0; r < runs; ++r) {
      RunFigures f;
      f.cpu_s = (c >= at ? 1 + step : 1.0) * (1 + normal(random));
      f.shim_processes = 1;
      s[c].push_back(f);
    }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) {
    fmt::print(stderr, "usage: history_bench SERIES COMMITS RUNS NOISE_PCT STEP_PCT SEED\n");
    return 1;
  }
  size_t series = std::strtoul(argv[1], nullptr, 10), commits = std::strtoul(argv[2], nullptr, 10),
         runs = std::strtoul(argv[3], nullptr, 10);
  double noise = std::atof(argv[4]) / 100, step = std::atof(argv[5]) / 100;
  std::mt19937_64 random(std::strtoull(argv[6], nullptr, 10));
  // The step falls anywhere in the middle two thirds of the series.
  std::uniform_int_distribution<size_t> where(commits / 6, commits - commits / 6);
  size_t found = 0, elsewhere = 0, false_alarms = 0, flat_series_alarmed = 0;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < series; ++i) {
    size_t at = where(random);
    auto changes =
        account::metric_changes(generate(random, commits, runs, noise, step, at), Metric::kCpu);
    bool hit = false, other = false;
    for (const auto& c : changes) (c.index + 1 >= at && c.index <= at + 1 ? hit : other) = true;
    found += hit;
    elsewhere += other;
    auto flat =
        account::metric_changes(generate(random, commits, runs, noise, 0, commits), Metric::kCpu);
    false_alarms += flat.size();
    flat_series_alarmed += !flat.empty();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("series: {} of {} commits, {} runs a commit, {:g}% noise (normal), step {:g}%\n",
             series, commits, runs, noise * 100, step * 100);
  fmt::print("detected within +-1 commit: {} of {} ({:.1f}%; target >= 95%)\n", found, series,
             100.0 * double(found) / double(series));
  fmt::print("stepped series with a change point elsewhere too: {} of {}\n", elsewhere, series);
  fmt::print("false alarms in {} flat series: {} change points in {} series (target <= 1)\n",
             series, false_alarms, flat_series_alarmed);
  fmt::print("time: {:.2f} s for {} series ({:.1f} ms a series)\n", seconds, 2 * series,
             1000 * seconds / double(2 * series));
  return 0;
}
