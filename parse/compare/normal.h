/// The standard normal distribution the comparison's statistics use, in
/// double precision. Boost.Math's default policy would carry a double over to
/// long double, and with it instantiate an initializer (a static object) that
/// computes erfc_inv down to 1e-900 in long double when any account command
/// starts: 60–90 µs of every start, for digits no comparison prints.
#pragma once

namespace account {

/// P(Z > z).
double normal_upper(double z);
/// The z with P(Z < z) = p.
double normal_quantile(double p);

}  // namespace account
