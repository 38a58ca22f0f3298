/// E-Divisive (Matteson & James, "A Nonparametric Approach for Multiple
/// Change Point Analysis of Multivariate Data", JASA 2014), as Apache
/// Otava and MongoDB's signal processing use it for performance series:
/// the divergence Q̂ (α = 1) between a segment's head X = Z[s, τ) and the
/// stretch after it Y = Z[τ, κ), maximised over τ and κ; the best split of
/// all segments is kept when a permutation test finds it significant, and the
/// search goes on in the segments it makes. A change point is the index of
/// the first value after the change (Otava's convention: the first commit
/// at which the figures changed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace account {

struct EDivisiveOptions {
  /// A split is kept when its permutation p-value is at most this. The
  /// benchmark (perf-tests/history-bench) holds false alarms at about 1 in
  /// 200 flat series with it.
  double significance = 0.005;
  /// Permutations a test makes: the smallest p-value is 1 / (permutations + 1).
  size_t permutations = 999;
  /// The shortest segment, in points: 1, so the newest commit alone can be one.
  size_t min_size = 1;
  /// The permutations are drawn from this seed: the same series gives the
  /// same change points every time.
  uint64_t seed = 0x6163636f756e74;
};

struct ChangePoint {
  size_t index = 0;    ///< the first point after the change
  double p_value = 0;  ///< of the permutation test that kept it
};

/// The change points of a series of points, each point a group of
/// observations (a commit's runs), in index order. Q̂ is computed over the
/// observations (n and m count them), a split falls only between points, and
/// the permutation test shuffles whole points: a build's runs stay together,
/// so a difference between builds that is not a change (one build's layout,
/// one machine's state) is part of the noise the test holds it against.
std::vector<ChangePoint> e_divisive(const std::vector<std::vector<double>>& points,
                                    const EDivisiveOptions& options = {});

}  // namespace account
