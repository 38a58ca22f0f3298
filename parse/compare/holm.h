/// Holm's step-down rule: many tests at once with the chance of any false
/// alarm among them (the family-wise error) held at the level asked, whatever
/// the dependence between the tests. The gate of `account compare` judges
/// every gated figure with it (docs/gate.md).
#pragma once

#include <vector>

namespace account {

/// Holm-adjusted p-values, in the order of `p`: with the m p-values sorted,
/// the i-th smallest (1-based) becomes the largest of min(1, (m - j + 1) p_(j))
/// for j <= i. A test is rejected at family-wise level alpha when its adjusted
/// p-value is at most alpha.
std::vector<double> holm_adjusted(const std::vector<double>& p);

}  // namespace account
