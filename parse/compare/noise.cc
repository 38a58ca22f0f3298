#include "compare/noise.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "compare/normal.h"

namespace account {

namespace {

// Below this many pairs the exact null distribution of U is counted.
constexpr size_t kExactPairs = 2500;

// The number of arrangements of n a's and m b's for each value of U (the count
// of (a, b) pairs with b above a), for samples without ties.
std::vector<double> u_counts(size_t n, size_t m) {
  // counts[i][j][u] by rows of i, keeping only the previous row.
  std::vector<std::vector<double>> prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = {1.0};  // i = 0: U = 0, one arrangement
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = {1.0};
    for (size_t j = 1; j <= m; ++j) {
      // The largest value is a b (U grows by i: it is above every a) or an a.
      std::vector<double> c(i * j + 1, 0.0);
      for (size_t u = 0; u < cur[j - 1].size(); ++u) c[u + i] += cur[j - 1][u];
      for (size_t u = 0; u < prev[j].size(); ++u) c[u] += prev[j][u];
      cur[j] = std::move(c);
    }
    std::swap(prev, cur);
  }
  return prev[m];
}

bool constant(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kWorse:
      return "worse";
    case Verdict::kBetter:
      return "better";
    case Verdict::kNoise:
      return "~";
    case Verdict::kSame:
      return "same";
    case Verdict::kTooFewRuns:
      return "too few runs";
  }
  return "?";
}

size_t hodges_lehmann_cut(size_t n, size_t m, double confidence) {
  if (n == 0 || m == 0) return 0;
  double tail = (1 - confidence) / 2;
  if (n * m <= kExactPairs) {
    std::vector<double> counts = u_counts(n, m);
    double total = 0;
    for (double c : counts) total += c;
    // The largest k with P(U < k) <= tail.
    double below = 0;
    size_t k = 0;
    while (k < counts.size() && (below + counts[k]) / total <= tail) below += counts[k++];
    return k;
  }
  double nm = double(n) * double(m);
  double sd = std::sqrt(nm * double(n + m + 1) / 12);
  double k = std::floor(nm / 2 - normal_quantile(1 - tail) * sd);
  return k < 1 ? 0 : size_t(k);
}

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b, Tail tail) {
  size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return 1;
  double u = 0;  // pairs with b above a, ties half
  for (double x : a)
    for (double y : b) u += y > x ? 1 : y == x ? 0.5 : 0;
  std::map<double, size_t> tie_sizes;
  for (double x : a) ++tie_sizes[x];
  for (double y : b) ++tie_sizes[y];
  bool ties = tie_sizes.size() < n + m;
  double nm = double(n) * double(m);
  if (!ties && n * m <= kExactPairs) {
    std::vector<double> counts = u_counts(n, m);
    double total = 0, at_most = 0, at_least = 0;
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (double(k) <= u) at_most += counts[k];
      if (double(k) >= u) at_least += counts[k];
    }
    if (tail == Tail::kBLarger) return at_least / total;
    return std::min(1.0, 2 * std::min(at_most, at_least) / total);
  }
  double N = double(n + m);
  double tie_term = 0;
  for (const auto& [value, t] : tie_sizes)
    tie_term += double(t) * double(t) * double(t) - double(t);
  double var = nm / 12 * ((N + 1) - tie_term / (N * (N - 1)));
  if (var <= 0) return 1;
  if (tail == Tail::kBLarger) return normal_upper((u - nm / 2 - 0.5) / std::sqrt(var));
  double z = (std::abs(u - nm / 2) - 0.5) / std::sqrt(var);  // continuity correction
  return std::min(1.0, 2 * normal_upper(std::max(0.0, z)));
}

ChangeEstimate estimate_change(const std::vector<double>& a, const std::vector<double>& b,
                               double confidence) {
  ChangeEstimate e;
  e.confidence = confidence;
  size_t need = 1;
  while (hodges_lehmann_cut(need, need, confidence) == 0 && need < 1000) ++need;
  e.min_runs_per_side = need;
  size_t n = a.size(), m = b.size();
  if (n >= 2 && m >= 2 && constant(a) && constant(b)) {
    e.method = "exact";
    e.shift = e.low = e.high = b.front() - a.front();
    e.p_value = e.shift == 0 ? 1 : 0;
    e.p_worse = e.shift > 0 ? 0 : 1;
    e.verdict = e.shift > 0 ? Verdict::kWorse : e.shift < 0 ? Verdict::kBetter : Verdict::kSame;
    return e;
  }
  e.method = "hodges-lehmann";
  size_t k = hodges_lehmann_cut(n, m, confidence);
  if (k == 0) return e;  // kTooFewRuns
  std::vector<double> d;
  d.reserve(n * m);
  for (double x : a)
    for (double y : b) d.push_back(y - x);
  std::sort(d.begin(), d.end());
  size_t count = d.size();
  e.shift = count % 2 ? d[count / 2] : (d[count / 2 - 1] + d[count / 2]) / 2;
  e.low = d[k - 1];
  e.high = d[count - k];
  e.p_value = mann_whitney_p(a, b);
  e.p_worse = mann_whitney_p(a, b, Tail::kBLarger);
  e.verdict = e.low > 0 ? Verdict::kWorse : e.high < 0 ? Verdict::kBetter : Verdict::kNoise;
  return e;
}

}  // namespace account
