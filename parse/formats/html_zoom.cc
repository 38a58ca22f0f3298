#include "formats/html_zoom.h"

#include <fmt/format.h>

#include "formats/chart_geometry.h"

namespace account {

namespace {

// The tick rule of chart_geometry.cc, line for line (see html_zoom.h for
// why a copy), then the zoom. The page holds no "http:" and no "//" at all
// (the test looks for either): comments in /* */, and new SVG elements take
// the namespace of the chart they go into.
constexpr const char* kScript = R"js(
function powerOfTen(n) {
  var p = 1;
  for (var i = 0; i < Math.abs(n); ++i) p *= 10;
  return n < 0 ? 1 / p : p;
}
function niceStep(span, count) {
  if (!(span > 0) || count < 1) return 1;
  var raw = span / count, n = 0, i;
  while (powerOfTen(n) > raw) --n;
  while (powerOfTen(n + 1) <= raw) ++n;
  var power = powerOfTen(n);
  for (i = 0; i < MULTIPLIERS.length; ++i)
    if (MULTIPLIERS[i] * power >= raw) return MULTIPLIERS[i] * power;
  return 10 * power;
}
function niceTicks(lo, hi, count) {
  if (hi < lo) { var swap = lo; lo = hi; hi = swap; }
  if (hi === lo) hi = lo + 1;
  var step = niceStep(hi - lo, count), ticks = [];
  var first = Math.floor(lo / step + SLACK) * step, last = Math.ceil(hi / step - SLACK) * step;
  for (var t = first; t <= last + step / 2; t += step) ticks.push(Math.abs(t) < step * SLACK ? 0 : t);
  return ticks;
}
function decimalsFor(step) {
  if (!(step > 0) || step >= 1) return 0;
  return Math.min(MAX_DECIMALS, Math.ceil(-Math.log10(step) - SLACK));
}
/* The labels of a time axis over [lo, hi], as svg_charts.cc writes them. */
function timeLabels(lo, hi) {
  var ticks = niceTicks(lo, hi, TIME_TICKS), step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
  return { ticks: ticks, labels: ticks.map(function (t) { return t.toFixed(decimalsFor(step)) + ' s'; }) };
}

var root = document.documentElement, drag = null;
function plotOf(svg) {
  var z = svg.getAttribute('data-zoom').split(' ').map(Number);
  return { left: z[0], right: z[1], d0: z[2], d1: z[3] };
}
function viewOf(svg, p) {
  var v = svg.getAttribute('data-view');
  return v ? v.split(' ').map(Number) : [p.d0, p.d1];
}
function userX(svg, e) {
  var pt = svg.createSVGPoint();
  pt.x = e.clientX; pt.y = e.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse()).x;
}
function make(svg, name, attrs) {
  var el = document.createElementNS(svg.namespaceURI, name);
  for (var a in attrs) el.setAttribute(a, attrs[a]);
  return el;
}
/* On the first zoom: keep the drawn axis and bar positions, and put the plot
   in an <svg> of the plot's width with the same coordinates, which clips it. */
function prepare(svg, p) {
  if (svg.accountAxis) return;
  var axis = svg.querySelector('g.x-axis'), h = svg.viewBox.baseVal.height;
  svg.accountAxis = { node: axis, html: axis.innerHTML, tick: axis.firstElementChild.cloneNode(true) };
  var groups = svg.querySelectorAll('g.zoom-curves, g.zoom-bars'), i;
  for (i = 0; i < groups.length; ++i) {
    var clip = make(svg, 'svg', { x: p.left, y: 0, width: p.right - p.left, height: h,
                                  viewBox: p.left + ' 0 ' + (p.right - p.left) + ' ' + h });
    groups[i].parentNode.insertBefore(clip, groups[i]);
    clip.appendChild(groups[i]);
  }
  var bars = svg.querySelectorAll('g.zoom-bars > *');
  for (i = 0; i < bars.length; ++i) {
    bars[i].setAttribute('data-x', bars[i].getAttribute('x'));
    if (bars[i].hasAttribute('width')) bars[i].setAttribute('data-width', bars[i].getAttribute('width'));
  }
}
/* Draws [z0, z1] of the chart's seconds with these ticks, or the whole chart
   as the tool drew it when ticks is null. */
function show(svg, z0, z1, ticks, labels) {
  var p = plotOf(svg), k = ticks ? (p.d1 - p.d0) / (z1 - z0) : 1;
  var c = ticks ? p.left - p.left * k + (p.d0 - z0) * (p.right - p.left) / (z1 - z0) : 0;
  prepare(svg, p);
  var curves = svg.querySelector('g.zoom-curves');
  if (curves && ticks) curves.setAttribute('transform', 'matrix(' + k + ' 0 0 1 ' + c + ' 0)');
  if (curves && !ticks) curves.removeAttribute('transform');
  var bars = svg.querySelectorAll('g.zoom-bars > *'), i;
  for (i = 0; i < bars.length; ++i) {
    var x = Number(bars[i].getAttribute('data-x'));
    if (bars[i].hasAttribute('data-width')) {
      bars[i].setAttribute('x', x * k + c);
      bars[i].setAttribute('width', Number(bars[i].getAttribute('data-width')) * k);
    } else if (!ticks) {
      bars[i].setAttribute('x', x);
      bars[i].style.display = '';
    } else {
      /* A label, 4 px into its bar (the rect before it): kept in sight when
         the bar starts left of the plot, hidden when what is left is too short. */
      var bar = bars[i].previousElementSibling, at = Math.max((x - 4) * k + c, p.left) + 4;
      var room = Number(bar.getAttribute('x')) + Number(bar.getAttribute('width')) - at - 4;
      bars[i].setAttribute('x', at);
      bars[i].style.display = '';
      if (room < bars[i].getComputedTextLength()) bars[i].style.display = 'none';
    }
  }
  var axis = svg.accountAxis;
  if (!ticks) {
    axis.node.innerHTML = axis.html;
    return;
  }
  while (axis.node.firstChild) axis.node.removeChild(axis.node.firstChild);
  for (i = 0; i < ticks.length; ++i) {
    var tick = axis.tick.cloneNode(true), at = p.left + (ticks[i] - z0) * (p.right - p.left) / (z1 - z0);
    var lines = tick.tagName === 'line' ? [tick] : tick.querySelectorAll('line');
    for (var j = 0; j < lines.length; ++j) { lines[j].setAttribute('x1', at); lines[j].setAttribute('x2', at); }
    var text = tick.tagName === 'text' ? tick : tick.querySelector('text');
    text.setAttribute('x', at);
    text.setAttribute('text-anchor', ticks.length > 1 && i === ticks.length - 1 ? 'end' : 'middle');
    text.textContent = labels[i];
    axis.node.appendChild(tick);
  }
}
/* Zooms into [a, b] seconds: the view widens to the ticks around it, as the
   tool's axis does. */
function zoomTo(svg, a, b) {
  if (!(b - a >= 1e-5)) return;  /* labels show microseconds at most */
  var axis = timeLabels(a, b), z0 = axis.ticks[0], z1 = axis.ticks[axis.ticks.length - 1];
  svg.setAttribute('data-view', z0 + ' ' + z1);
  svg.setAttribute('data-selected', a + ' ' + b);
  show(svg, z0, z1, axis.ticks, axis.labels);
  svg.accountReset.disabled = false;
}
function reset(svg) {
  if (!svg.hasAttribute('data-view')) return;
  var p = plotOf(svg);
  svg.removeAttribute('data-view');
  svg.removeAttribute('data-selected');
  show(svg, p.d0, p.d1, null, null);
  svg.accountReset.disabled = true;
}

var charts = document.querySelectorAll('svg[data-zoom]'), n;
for (n = 0; n < charts.length; ++n) {
  var bar = document.createElement('div'), button = document.createElement('button');
  bar.className = 'zoom';
  button.type = 'button';
  button.disabled = true;
  button.textContent = 'Reset zoom';
  button.onclick = reset.bind(null, charts[n]);
  bar.appendChild(button);
  bar.appendChild(document.createTextNode(' Drag across the chart to zoom into a time range; double-click it to zoom out.'));
  charts[n].parentNode.insertBefore(bar, charts[n].nextSibling);
  charts[n].accountReset = button;
}
root.classList.add('zoomable');
root.setAttribute('data-zoom-charts', String(charts.length));
window.accountZoom = { timeLabels: timeLabels, zoomTo: zoomTo, reset: reset };

document.addEventListener('mousedown', function (e) {
  var svg = e.button === 0 && e.target.closest ? e.target.closest('svg[data-zoom]') : null;
  if (!svg) return;
  var p = plotOf(svg), x = userX(svg, e);
  if (x < p.left || x > p.right) return;
  e.preventDefault();
  var band = make(svg, 'rect', { x: x, y: 0, width: 0, height: svg.viewBox.baseVal.height,
                                 fill: '#4e79a7', 'fill-opacity': 0.18, 'pointer-events': 'none' });
  svg.appendChild(band);
  drag = { svg: svg, p: p, from: x, to: x, band: band };
});
document.addEventListener('mousemove', function (e) {
  if (!drag) return;
  drag.to = Math.max(drag.p.left, Math.min(drag.p.right, userX(drag.svg, e)));
  drag.band.setAttribute('x', Math.min(drag.from, drag.to));
  drag.band.setAttribute('width', Math.abs(drag.to - drag.from));
});
document.addEventListener('mouseup', function () {
  if (!drag) return;
  var d = drag, v = viewOf(d.svg, d.p);
  drag = null;
  d.svg.removeChild(d.band);
  if (Math.abs(d.to - d.from) < 4) return;  /* a click, not a drag */
  function seconds(x) { return v[0] + (x - d.p.left) * (v[1] - v[0]) / (d.p.right - d.p.left); }
  zoomTo(d.svg, seconds(Math.min(d.from, d.to)), seconds(Math.max(d.from, d.to)));
});
document.addEventListener('dblclick', function (e) {
  var svg = e.target.closest ? e.target.closest('svg[data-zoom]') : null;
  if (svg) reset(svg);
});
)js";

}  // namespace

const std::string& zoom_script() {
  static const std::string script = [] {
    std::string multipliers;
    for (double m : kTickMultipliers)
      multipliers += (multipliers.empty() ? "" : ", ") + fmt::format("{}", m);
    return fmt::format(
               "(function () {{\n/* The tick rule's constants, from chart_geometry.h. */\n"
               "var MULTIPLIERS = [{}], TIME_TICKS = {}, MAX_DECIMALS = {}, SLACK = {};",
               multipliers, kTimeAxisTicks, kMaxTickDecimals, kTickSlack) +
           kScript + "})();\n";
  }();
  return script;
}

const char* zoom_style() {
  return R"css(
.zoomable svg[data-zoom] { cursor: crosshair; user-select: none; }
svg.chart path { vector-effect: non-scaling-stroke; }
div.zoom { font-size: 0.8em; color: #777; margin: 0.1em 0 0.4em; }
div.zoom button { font-size: inherit; margin-right: 0.4em; }
)css";
}

}  // namespace account
