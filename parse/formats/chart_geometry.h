/// The geometry every chart shares: linear scales, tick values a person can
/// read (1, 2 or 5 times a power of ten), axis labels in the unit of the axis,
/// and the reduction of a long curve to what a pixel column can show without
/// losing a peak.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace account {

/// Maps [d0, d1] onto [r0, r1] (a flat domain maps to the middle of the range).
struct LinearScale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const {
    if (d1 == d0) return (r0 + r1) / 2;
    return r0 + (v - d0) * (r1 - r0) / (d1 - d0);
  }
};

/// The tick rule's constants. The page's zoom script (html_zoom.cc) re-ticks
/// a zoomed time axis in the browser: it is generated with these values.
/// Tick steps are these multiples of a power of ten (10: the next power).
inline constexpr double kTickMultipliers[] = {1, 2, 5, 10};
/// About this many ticks on a time axis (memory over time, processes).
inline constexpr size_t kTimeAxisTicks = 8;
/// Labels never show more decimals than this.
inline constexpr int kMaxTickDecimals = 6;
/// The slack of the tick rule's rounding (a tick on lo or hi up to float noise).
inline constexpr double kTickSlack = 1e-9;

/// At most about `count` ticks covering [lo, hi], spaced 1, 2 or 5 times a
/// power of ten, starting at the first multiple of the step at or below lo
/// and ending at the first at or above hi (so the axis can be extended to them).
std::vector<double> nice_ticks(double lo, double hi, size_t count);

/// A tick label: bytes in MiB ("0", "12.5", "1,024"), seconds ("0.25 s"), no
/// trailing zeros beyond what the step needs.
std::string format_mib_tick(double bytes, double step_bytes);
std::string format_seconds_tick(double seconds, double step_seconds);

/// A time axis over [lo, hi] seconds: nice_ticks with kTimeAxisTicks, and
/// each tick's label (format_seconds_tick with the ticks' step).
struct TimeAxis {
  std::vector<double> ticks;
  std::vector<std::string> labels;
};
TimeAxis time_axis(double lo, double hi);

/// One point of a curve.
struct CurvePoint {
  double x = 0, y = 0;
};

/// The curve reduced to at most 2 * columns + 2 points: per column of equal
/// x width, its lowest and its highest point (in x order), so the drawn line
/// reaches every column's peak and trough and the curve's maximum is never
/// lost; the first and last points are kept. A curve that fits is returned
/// unchanged.
std::vector<CurvePoint> reduce_for_drawing(const std::vector<CurvePoint>& curve, size_t columns);

/// Text safe inside SVG/HTML text and attribute values.
std::string xml_escape(const std::string& s);

}  // namespace account
