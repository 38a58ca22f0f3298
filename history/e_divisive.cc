#include "e_divisive.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace account {
namespace {

// Sums of |x - y| over the observations of rectangles of points, from one
// table of prefix sums over the points in the order `order` gives them:
// prefix[i][j] = sum over points a < i, b < j of the sum over their
// observations' pairs. count[i]: the observations of points before i.
class Distances {
 public:
  Distances(const std::vector<std::vector<double>>& pair_sums, const std::vector<size_t>& sizes,
            const std::vector<size_t>& order)
      : n_(order.size()), prefix_((n_ + 1) * (n_ + 1)), count_(n_ + 1) {
    for (size_t i = 0; i < n_; ++i) {
      count_[i + 1] = count_[i] + sizes[order[i]];
      double row = 0;
      for (size_t j = 0; j < n_; ++j) {
        row += pair_sums[order[i]][order[j]];
        at(i + 1, j + 1) = at(i, j + 1) + row;
      }
    }
  }
  // Sum over points a in [a0, a1), b in [b0, b1).
  double block(size_t a0, size_t a1, size_t b0, size_t b1) const {
    return at(a1, b1) - at(a0, b1) - at(a1, b0) + at(a0, b0);
  }
  double observations(size_t a0, size_t a1) const { return double(count_[a1] - count_[a0]); }
  // Mean distance between distinct observations of points [a0, a1) (0 for one).
  double within(size_t a0, size_t a1) const {
    double n = observations(a0, a1);
    return n < 2 ? 0 : block(a0, a1, a0, a1) / (n * (n - 1));
  }

 private:
  double& at(size_t i, size_t j) { return prefix_[i * (n_ + 1) + j]; }
  double at(size_t i, size_t j) const { return prefix_[i * (n_ + 1) + j]; }
  size_t n_;
  std::vector<double> prefix_;
  std::vector<size_t> count_;
};

struct Split {
  size_t tau = 0;
  double q = -1;  ///< below any Q̂ of a real split: none found
};

// Q̂(X, Y) = nm/(n+m) Ê, Ê = 2 mean|X-Y| - mean|X-X'| - mean|Y-Y'| (α = 1).
Split best_split(const Distances& d, size_t s, size_t e, size_t min_size) {
  Split best;
  for (size_t tau = s + min_size; tau + min_size <= e; ++tau) {
    double within_x = d.within(s, tau);
    double n = d.observations(s, tau);
    for (size_t kappa = tau + min_size; kappa <= e; ++kappa) {
      double m = d.observations(tau, kappa);
      double between = d.block(s, tau, tau, kappa) / (n * m);
      double q = n * m / (n + m) * (2 * between - within_x - d.within(tau, kappa));
      if (q > best.q) best = {tau, q};
    }
  }
  return best;
}

// The best split over all segments (bounds: sorted, from 0 to the end).
Split best_of_segments(const Distances& d, const std::vector<size_t>& bounds, size_t min_size) {
  Split best;
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    Split s = best_split(d, bounds[i], bounds[i + 1], min_size);
    if (s.q > best.q) best = s;
  }
  return best;
}

}  // namespace

std::vector<ChangePoint> e_divisive(const std::vector<std::vector<double>>& points,
                                    const EDivisiveOptions& options) {
  std::vector<ChangePoint> found;
  size_t t = points.size();
  if (t < 2 * options.min_size) return found;
  std::vector<size_t> sizes(t), order(t);
  std::vector<std::vector<double>> pair_sums(t, std::vector<double>(t));
  for (size_t i = 0; i < t; ++i) {
    sizes[i] = points[i].size();
    order[i] = i;
    for (size_t j = 0; j < t; ++j)
      for (double x : points[i])
        for (double y : points[j]) pair_sums[i][j] += std::fabs(x - y);
  }
  std::mt19937_64 random(options.seed);
  std::vector<size_t> bounds = {0, t};
  for (;;) {
    Split split = best_of_segments(Distances(pair_sums, sizes, order), bounds, options.min_size);
    if (split.q <= 0) break;
    // The permutation test: the points shuffled within each segment (the
    // change points found so far stay), each with all its observations, and
    // the best split of the shuffled series again.
    size_t as_large = 0;
    std::vector<size_t> shuffled = order;
    for (size_t r = 0; r < options.permutations; ++r) {
      for (size_t i = 0; i + 1 < bounds.size(); ++i)
        std::shuffle(shuffled.begin() + long(bounds[i]), shuffled.begin() + long(bounds[i + 1]),
                     random);
      Distances pd(pair_sums, sizes, shuffled);
      if (best_of_segments(pd, bounds, options.min_size).q >= split.q) ++as_large;
    }
    double p = double(as_large + 1) / double(options.permutations + 1);
    if (p > options.significance) break;
    found.push_back({split.tau, p});
    bounds.insert(std::upper_bound(bounds.begin(), bounds.end(), split.tau), split.tau);
  }
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  return found;
}

}  // namespace account
