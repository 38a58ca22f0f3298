#include "compare/normal.h"

#include <boost/math/distributions/normal.hpp>

namespace account {
namespace {
using Normal = boost::math::normal_distribution<
    double, boost::math::policies::policy<boost::math::policies::promote_double<false>>>;
}  // namespace

double normal_upper(double z) {
  return boost::math::cdf(boost::math::complement(Normal(), z));
}

double normal_quantile(double p) {
  return boost::math::quantile(Normal(), p);
}

}  // namespace account
