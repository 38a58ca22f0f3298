#!/usr/bin/env python3
"""The zoom of the HTML pages in headless Chromium, driven with real mouse
events over the DevTools protocol (--remote-debugging-pipe; python3's standard
library only).

On the report: a drag across a memory chart and a process timeline zooms each
into the dragged time range (the axis shows other ticks, those the tool itself
gives for that range), a double-click and the Reset button zoom out again. The
zoom script's tick labels equal the tool's (time_axis_labels) over many ranges.
On the compare page: the builds' memory curves in one chart with a legend
naming each build, their process timelines in one chart, and a drag zooms it.
Neither page logs a console message or throws. PNGs of a zoomed chart
(report-zoomed.png) and of compare's shared charts (compare-charts.png) are
written to OUTDIR.

usage: html_browser_zoom.py TIME_AXIS_LABELS OUTDIR REPORT.html COMPARE.html BUILD...
Prints "zoom ok: ..." at the end; a failure is one line starting with "FAIL:".
"""
import base64
import json
import os
import random
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "perf-tests", "lib"))
from devtools import Browser, Failure, check  # noqa: E402


# The n-th chart with this aria-label, as JavaScript.
def chart(label, n=0):
    return "document.querySelectorAll('svg[data-zoom][aria-label=\"%s\"]')[%d]" % (label, n)


def axis_state(b, svg):
    return b.js("""(function () {
      var svg = %s;
      return { labels: Array.from(svg.querySelectorAll('g.x-axis text')).map(function (t) { return t.textContent; }),
               view: svg.getAttribute('data-view'), selected: svg.getAttribute('data-selected'),
               zoom: svg.getAttribute('data-zoom'),
               curves: svg.querySelector('g.zoom-curves') ? svg.querySelector('g.zoom-curves').getAttribute('transform') : null,
               bar: svg.querySelector('g.zoom-bars rect') ? Number(svg.querySelector('g.zoom-bars rect').getAttribute('width')) : null,
               clippedLabels: Array.from(svg.querySelectorAll('g.zoom-bars text')).filter(function (t) {
                 return Number(t.getAttribute('x')) < Number(svg.getAttribute('data-zoom').split(' ')[0]) &&
                        t.style.display !== 'none'; }).length };
    })()""" % svg)


def plot_on_screen(b, svg):
    """Scrolls the chart into view; returns its plot's left and right edge and a y
    inside it, in CSS pixels of the viewport."""
    return b.js("""(function () {
      var svg = %s;
      svg.scrollIntoView({ block: 'center' });
      var r = svg.getBoundingClientRect(), z = svg.getAttribute('data-zoom').split(' ').map(Number);
      var k = r.width / svg.viewBox.baseVal.width;
      return { left: r.left + z[0] * k, right: r.left + z[1] * k, y: r.top + r.height * 0.3 };
    })()""" % svg)


def tool_labels(labels_tool, ranges):
    text = "".join("%r %r\n" % (lo, hi) for lo, hi in ranges)
    out = subprocess.run([labels_tool], input=text, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def zoom_and_reset(b, labels_tool, svg, name, reset_by):
    """Drags from 20 % to 55 % of the plot; checks the axis, then zooms out."""
    before = axis_state(b, svg)
    check(before["view"] is None, "%s: zoomed before any drag" % name)
    p = plot_on_screen(b, svg)
    width = p["right"] - p["left"]
    b.drag(p["left"] + 0.2 * width, p["left"] + 0.55 * width, p["y"])
    after = axis_state(b, svg)
    check(after["view"] is not None, "%s: a drag did not zoom (axis %s)" % (name, after["labels"]))
    check(after["labels"] != before["labels"],
          "%s: the axis did not change: %s" % (name, after["labels"]))
    lo, hi = (float(v) for v in after["selected"].split())
    z = [float(v) for v in after["zoom"].split()]
    full = z[3] - z[2]
    # The drag covered 20 %..55 % of the drawn seconds (a pixel's worth of slack).
    check(abs(lo - (z[2] + 0.2 * full)) <= full / 400 and abs(hi - (z[2] + 0.55 * full)) <= full / 400,
          "%s: dragged over %.4f..%.4f s, zoomed into %.4f..%.4f s" %
          (name, z[2] + 0.2 * full, z[2] + 0.55 * full, lo, hi))
    expected = tool_labels(labels_tool, [(lo, hi)])[0].split("|")
    check(after["labels"] == expected,
          "%s: zoomed axis %s, the tool's axis for %r..%r is %s" % (name, after["labels"], lo, hi, expected))
    view = [float(v) for v in after["view"].split()]
    widening = full / (view[1] - view[0])
    check(widening > 1, "%s: zoomed out to %s from %s" % (name, after["view"], z))
    check(after["clippedLabels"] == 0,
          "%s: %d bar labels left of the plot, clipped" % (name, after["clippedLabels"]))
    if after["curves"] is None and after["bar"] is not None:
        check(abs(after["bar"] - before["bar"] * widening) <= 0.01 * after["bar"],
              "%s: a bar of %s px is %s px wide in a view %.2f times narrower" %
              (name, before["bar"], after["bar"], widening))
    else:
        stretch = after["curves"] or ""
        check(stretch.startswith("matrix(") and
              abs(float(stretch[7:].split()[0]) - widening) <= 1e-6 * widening,
              "%s: the curves were not stretched %.2f times (%s)" % (name, widening, stretch))
    shot = None
    if reset_by == "double-click":
        b.mouse("mouseMoved", 2, 2)  # no tooltip over the picture
        shot = b.call("Page.captureScreenshot", {"format": "png", "clip": b.js(
            "(function () { var r = %s.getBoundingClientRect(); return { x: r.left + scrollX, "
            "y: r.top + scrollY - 4, width: r.width, height: r.height + 40, scale: 1 }; })()" % svg)})
        b.double_click((p["left"] + p["right"]) / 2, p["y"])
    else:
        button = b.js("(function () { var r = %s.nextElementSibling.querySelector('button')"
                      ".getBoundingClientRect(); return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; })()" % svg)
        b.mouse("mouseMoved", button["x"], button["y"])
        b.mouse("mousePressed", button["x"], button["y"], buttons=1, clicks=1)
        b.mouse("mouseReleased", button["x"], button["y"], clicks=1)
    back = axis_state(b, svg)
    check(back["view"] is None and back["labels"] == before["labels"] and back["curves"] is None
          and back["bar"] == before["bar"],
          "%s: %s did not zoom out: %s, was %s" % (name, reset_by, back, before))
    return expected, shot


def ticks_agree(b, labels_tool):
    """The script's labels against the tool's over ranges of every scale."""
    rng = random.Random(13)
    ranges = []
    for _ in range(3000):
        lo = rng.random() * 10 ** rng.randint(-3, 3)
        ranges.append((lo, lo + rng.random() * 10 ** rng.randint(-4, 4)))
    ranges += [(0, 1), (0, 0.001), (0.1, 0.3), (0, 9.5), (0, 1e-4), (2.5, 2.5)]
    script = b.js("JSON.stringify(%s.map(function (r) { return accountZoom.timeLabels(r[0], r[1]).labels.join('|'); }))"
                  % json.dumps(ranges))
    script = json.loads(script)
    tool = tool_labels(labels_tool, ranges)
    check(len(tool) == len(ranges), "time_axis_labels printed %d lines for %d ranges" % (len(tool), len(ranges)))
    for r, s, t in zip(ranges, script, tool):
        check(s == t, "ticks of %r..%r: the page's script gives %s, the tool %s" % (r[0], r[1], s, t))
    return len(ranges)


def main():
    labels_tool, out, report, compare = sys.argv[1:5]
    builds = sys.argv[5:]
    profile = os.path.join(out, "zoom-profile")
    shutil.rmtree(profile, ignore_errors=True)
    started = time.monotonic()
    with open(os.path.join(out, "zoom-chromium.log"), "w") as log:
        b = Browser(profile, log)
        try:
            b.open_page()
            b.load(report)
            charts = b.js("Number(document.documentElement.getAttribute('data-zoom-charts'))")
            check(charts >= 2, "the report's script set up %s zoomable charts" % charts)
            zoomed, shot = zoom_and_reset(b, labels_tool, chart("memory over time"), "memory over time",
                                          "double-click")
            with open(os.path.join(out, "report-zoomed.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            zoom_and_reset(b, labels_tool, chart("process timeline"), "process timeline", "Reset zoom")
            ranges = ticks_agree(b, labels_tool)
            messages = b.console_messages()
            check(not messages, "the report logged: %s" % messages[:3])

            b.load(compare)
            sections = b.js("document.querySelectorAll('section').length")
            timelines = b.js("document.querySelectorAll('svg[aria-label=\"process timeline\"]').length")
            check(sections >= 1 and timelines == sections,
                  "compare: %s process timelines for %s operations, not one each" % (timelines, sections))
            for label in ("process timeline", "memory over time"):
                text = b.js("%s.textContent" % chart(label))
                for build in builds:
                    check(build in text, "compare's first %s does not name build %s" % (label, build))
            memory_charts = b.js("document.querySelectorAll('svg[aria-label=\"memory over time\"]').length")
            check(memory_charts == sections, "compare: %s memory charts for %s operations" %
                  (memory_charts, sections))
            # Both clones recorded backtraces: each operation has its difference icicle.
            diffs = b.js("document.querySelectorAll('svg[aria-label=\"allocations by call stack: "
                         "what grew and shrank\"]').length")
            check(diffs == sections, "compare: %s difference icicles for %s operations" %
                  (diffs, sections))
            frames = b.js("document.querySelectorAll('g.diff').length")
            check(frames >= 3 * sections, "compare: %s frames in the difference icicles" % frames)
            compare_ticks, _ = zoom_and_reset(b, labels_tool, chart("process timeline"),
                                              "compare's process timeline", "double-click")
            # The first operation's memory curves and processes, for the docs.
            b.mouse("mouseMoved", 2, 2)
            area = b.js("""(function () {
              var m = %s.getBoundingClientRect(), p = %s.getBoundingClientRect();
              return { x: 0, y: m.top + scrollY - 40, width: 1366,
                       height: p.bottom - m.top + 80, scale: 1 };
            })()""" % (chart("memory over time"), chart("process timeline")))
            shot = b.call("Page.captureScreenshot",
                          {"format": "png", "clip": area, "captureBeyondViewport": True})
            with open(os.path.join(out, "compare-charts.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            area = b.js("""(function () {
              var d = document.querySelector('svg[aria-label="allocations by call stack: what grew and shrank"]').getBoundingClientRect();
              return { x: 0, y: d.top + scrollY - 60, width: 1366, height: d.height + 80, scale: 1 };
            })()""")
            shot = b.call("Page.captureScreenshot",
                          {"format": "png", "clip": area, "captureBeyondViewport": True})
            with open(os.path.join(out, "compare-difference.png"), "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            messages = b.console_messages()
            check(not messages, "the compare page logged: %s" % messages[:3])
        finally:
            b.close()
    print("zoom ok: report axis zoomed to %s, compare's to %s; %d ranges ticked alike; %.1f s" %
          (" ".join(zoomed), " ".join(compare_ticks), ranges, time.monotonic() - started))


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
