// The tool's time-axis labels for ranges read from stdin ("LO HI" a line),
// printed one range a line, labels joined by '|': what the browser test
// (html_browser_zoom.py) compares the zoom script's own labels against.
#include <cstdio>
#include <string>

#include "formats/chart_geometry.h"

int main() {
  double lo, hi;
  while (std::scanf("%lf %lf", &lo, &hi) == 2) {
    account::TimeAxis axis = account::time_axis(lo, hi);
    std::string line;
    for (const std::string& label : axis.labels) line += (line.empty() ? "" : "|") + label;
    std::printf("%s\n", line.c_str());
  }
  return 0;
}
