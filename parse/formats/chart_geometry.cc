#include "formats/chart_geometry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace account {

namespace {

// 10^n by exact multiplications (exact up to 10^22) and one correctly rounded
// division for n < 0: no pow() or log10(), whose last bit differs between libm
// and a browser's JavaScript, so the zoom script's copy picks the same steps.
double power_of_ten(int n) {
  double p = 1;
  for (int i = 0; i < (n < 0 ? -n : n); ++i) p *= 10;
  return n < 0 ? 1 / p : p;
}

double nice_step(double span, size_t count) {
  if (!(span > 0) || count < 1) return 1;
  double raw = span / double(count);
  int n = 0;  // the power of ten at or below raw
  while (power_of_ten(n) > raw) --n;
  while (power_of_ten(n + 1) <= raw) ++n;
  double power = power_of_ten(n);
  for (double m : kTickMultipliers)
    if (m * power >= raw) return m * power;
  return 10 * power;
}

// Decimals a label needs for ticks `step` apart.
int decimals_for(double step) {
  if (!(step > 0) || step >= 1) return 0;
  return std::min(kMaxTickDecimals, int(std::ceil(-std::log10(step) - kTickSlack)));
}

std::string with_thousands(const std::string& number) {
  size_t dot = number.find('.');
  std::string whole = number.substr(0, dot),
              rest = dot == std::string::npos ? "" : number.substr(dot);
  bool negative = !whole.empty() && whole[0] == '-';
  if (negative) whole.erase(0, 1);
  std::string out;
  for (size_t i = 0; i < whole.size(); ++i) {
    if (i && (whole.size() - i) % 3 == 0) out += ',';
    out += whole[i];
  }
  return (negative ? "-" : "") + out + rest;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, size_t count) {
  if (hi < lo) std::swap(lo, hi);
  if (hi == lo) hi = lo + 1;
  double step = nice_step(hi - lo, count);
  double first = std::floor(lo / step + kTickSlack) * step;
  double last = std::ceil(hi / step - kTickSlack) * step;
  std::vector<double> ticks;
  for (double t = first; t <= last + step / 2; t += step)
    ticks.push_back(std::abs(t) < step * kTickSlack ? 0 : t);
  return ticks;
}

std::string format_mib_tick(double bytes, double step_bytes) {
  const double mib = 1024.0 * 1024.0;
  return with_thousands(fmt::format("{:.{}f}", bytes / mib, decimals_for(step_bytes / mib)));
}

std::string format_seconds_tick(double seconds, double step_seconds) {
  return fmt::format("{:.{}f} s", seconds, decimals_for(step_seconds));
}

TimeAxis time_axis(double lo, double hi) {
  TimeAxis axis;
  axis.ticks = nice_ticks(lo, hi, kTimeAxisTicks);
  double step = axis.ticks.size() > 1 ? axis.ticks[1] - axis.ticks[0] : 1;
  for (double t : axis.ticks) axis.labels.push_back(format_seconds_tick(t, step));
  return axis;
}

std::vector<CurvePoint> reduce_for_drawing(const std::vector<CurvePoint>& curve, size_t columns) {
  if (columns == 0 || curve.size() <= 2 * columns + 2) return curve;
  double x0 = curve.front().x, x1 = curve.back().x;
  double width = (x1 - x0) / double(columns);
  std::vector<CurvePoint> out;
  out.push_back(curve.front());
  size_t i = 1, end = curve.size() - 1;
  for (size_t c = 0; c < columns && i < end; ++c) {
    double limit = c + 1 == columns ? x1 : x0 + width * double(c + 1);
    size_t start = i, lo = i, hi = i;
    for (; i < end && (curve[i].x < limit || c + 1 == columns); ++i) {
      if (curve[i].y < curve[lo].y) lo = i;
      if (curve[i].y > curve[hi].y) hi = i;
    }
    if (i == start) continue;  // no point in this column
    if (lo == hi) {
      out.push_back(curve[lo]);
    } else {
      out.push_back(curve[std::min(lo, hi)]);
      out.push_back(curve[std::max(lo, hi)]);
    }
  }
  out.push_back(curve.back());
  return out;
}

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in XML, not even as references.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

}  // namespace account
