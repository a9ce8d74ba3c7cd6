// Line charts drawn as SVG by hand: a fixed 15-minute window, nice y ticks, clock times below, a legend with each
// line's latest value, and a readout that follows the pointer. No library, nothing inline (the CSP allows neither).
import { h, uniqueId } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 440;
const HEIGHT = 200;
const MARGIN = { top: 10, right: 10, bottom: 24, left: 44 };
/** Lines drawn at most (the busiest); the rest are named in the legend's last line. */
export const MAX_LINES = 6;
/** Spacings of the time ticks: the smallest that leaves at most 6 ticks in the window. */
const TIME_STEPS_MS = [5_000, 10_000, 15_000, 30_000, 60_000, 120_000, 180_000, 300_000];
/** Horizontal grid lines above zero, at most. */
const VALUE_TICKS = 5;

function svg(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  element.append(...children);
  return element;
}

/**
 * A chart and its `update({ times, windowMs, series })`: `times` in epoch ms, each series `{ label, values }` as long
 * as `times` (null where there is no value). `format` writes a value for the axis and legend.
 */
export function lineChart({ title, unit, format = compact, empty = 'No data yet.' }) {
  const titleId = uniqueId('chart-title');
  const plot = h('div', { class: 'plot' });
  const legend = h('ul', { class: 'legend' });
  const readout = h('div', { class: 'readout', hidden: true });
  const element = h(
    'figure',
    { class: 'chart', 'aria-labelledby': titleId },
    h('figcaption', { id: titleId }, title),
    plot,
    readout,
    legend,
  );
  let state;

  const draw = ({ times, windowMs, series }) => {
    const end = times.length > 0 ? times[times.length - 1] : Date.now();
    const start = end - windowMs;
    const ranked = busiest(series);
    const lines = ranked.filter((line) => line.peak > 0).slice(0, MAX_LINES);
    const peak = Math.max(0, ...lines.flatMap((line) => line.values.filter((value) => value !== null)));
    const step = niceStep(peak);
    const top = step * Math.max(1, Math.ceil(peak / step));
    const x = (time) => MARGIN.left + ((time - start) / windowMs) * (WIDTH - MARGIN.left - MARGIN.right);
    const y = (value) => HEIGHT - MARGIN.bottom - (value / top) * (HEIGHT - MARGIN.top - MARGIN.bottom);
    state = { times, lines, x, start, end };

    const grid = [];
    for (let value = 0; value <= top; value += step) {
      grid.push(svg('line', { class: 'grid', x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(value), y2: y(value) }));
      grid.push(svg('text', { class: 'tick', x: MARGIN.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, format(value)));
    }
    const every = TIME_STEPS_MS.find((ms) => windowMs / ms <= 6) ?? TIME_STEPS_MS[TIME_STEPS_MS.length - 1];
    for (let time = Math.ceil(start / every) * every; time <= end; time += every) {
      grid.push(svg('line', { class: 'grid', x1: x(time), x2: x(time), y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom }));
      grid.push(svg('text', { class: 'tick', x: x(time), y: HEIGHT - 8, 'text-anchor': 'middle' }, clock(time, every < 60_000)));
    }
    const paths = lines.map((line, index) =>
      svg('path', { class: `line series-${index}`, d: pathOf(times, line.values, x, y), 'data-series': line.label }),
    );
    const cursor = svg('line', { class: 'cursor', y1: MARGIN.top, y2: HEIGHT - MARGIN.bottom, visibility: 'hidden' });
    const label =
      lines.length === 0
        ? `${title}: ${empty}`
        : `${title}, last ${duration(windowMs)}: ` +
          lines.map((line) => `${line.label} now ${format(latest(line.values) ?? 0)} ${unit}, peak ${format(line.peak)}`).join('; ');
    const chart = svg(
      'svg',
      { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label, 'data-peak': peak },
      ...grid,
      svg('line', { class: 'axis', x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(0), y2: y(0) }),
      ...paths,
      cursor,
    );
    chart.addEventListener('pointermove', (event) => point(event, chart, cursor));
    chart.addEventListener('pointerleave', () => {
      cursor.setAttribute('visibility', 'hidden');
      readout.hidden = true;
    });
    plot.replaceChildren(chart, ...(lines.length === 0 ? [h('p', { class: 'chart-empty' }, empty)] : []));
    const hidden = ranked.length - lines.length;
    const flat = ranked.filter((line) => line.peak === 0).length;
    legend.replaceChildren(
      ...lines.map((line, index) =>
        h(
          'li',
          {},
          h('span', { class: `swatch series-${index}`, 'aria-hidden': 'true' }),
          h('span', { class: 'legend-label' }, line.label),
          h('span', { class: 'legend-value' }, `${format(latest(line.values) ?? 0)} ${unit}`),
        ),
      ),
      ...(hidden > 0 ? [h('li', { class: 'hint' }, `and ${hidden} more${flat === hidden ? ' at 0' : ', quieter'} (see the tables)`)] : []),
    );
  };

  /** The values under the pointer: the nearest sample in time. */
  const point = (event, chart, cursor) => {
    const { times, lines, x } = state;
    if (times.length === 0) return;
    const box = chart.getBoundingClientRect();
    const at = ((event.clientX - box.left) / box.width) * WIDTH;
    let nearest = 0;
    for (let i = 1; i < times.length; i++) if (Math.abs(x(times[i]) - at) < Math.abs(x(times[nearest]) - at)) nearest = i;
    cursor.setAttribute('x1', x(times[nearest]));
    cursor.setAttribute('x2', x(times[nearest]));
    cursor.setAttribute('visibility', 'visible');
    readout.replaceChildren(
      h('strong', {}, clock(times[nearest], true)),
      ...lines.map((line, index) =>
        h(
          'span',
          {},
          h('span', { class: `swatch series-${index}`, 'aria-hidden': 'true' }),
          `${line.label}: ${line.values[nearest] === null ? '—' : format(line.values[nearest])}`,
        ),
      ),
    );
    readout.hidden = false;
    // Beside the cursor, on the side with more room (set through the CSSOM, which the CSP allows).
    const cursorPx = (x(times[nearest]) / WIDTH) * box.width;
    const padding = chart.getBoundingClientRect().left - element.getBoundingClientRect().left;
    const onRight = cursorPx < box.width / 2;
    readout.style.left = onRight ? `${padding + cursorPx + 10}px` : 'auto';
    readout.style.right = onRight ? 'auto' : `${padding + box.width - cursorPx + 10}px`;
  };

  return { element, update: draw };
}

/** The series with the highest peak first; those with no value at all are left out. */
function busiest(series) {
  return series
    .map((line) => ({ ...line, peak: Math.max(-Infinity, ...line.values.filter((value) => value !== null)) }))
    .filter((line) => line.peak !== -Infinity)
    .sort((a, b) => b.peak - a.peak || a.label.localeCompare(b.label));
}

/** One path with a gap wherever a value is missing. */
function pathOf(times, values, x, y) {
  let d = '';
  let drawing = false;
  values.forEach((value, i) => {
    if (value === null) {
      drawing = false;
      return;
    }
    d += `${drawing ? 'L' : 'M'}${x(times[i]).toFixed(1)} ${y(value).toFixed(1)}`;
    drawing = true;
  });
  return d;
}

function latest(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i];
  return undefined;
}

/** The smallest of 1, 2, 2.5 or 5 times a power of ten that reaches `peak` in at most {@link VALUE_TICKS} steps. */
function niceStep(peak) {
  if (peak <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(peak / VALUE_TICKS));
  return [1, 2, 2.5, 5, 10].map((step) => step * power).find((step) => Math.ceil(peak / step) <= VALUE_TICKS);
}

/** 1234 → 1.2k; 0.5 → 0.5. */
export function compact(value) {
  return value.toLocaleString('en', { notation: 'compact', maximumFractionDigits: 1 });
}

function duration(ms) {
  return ms < 120_000 ? `${Math.round(ms / 1000)} seconds` : `${Math.round(ms / 60_000)} minutes`;
}

function clock(time, seconds = false) {
  return new Date(time).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: seconds ? '2-digit' : undefined });
}
