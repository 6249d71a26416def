// SVG charts drawn by the dashboard's own code (no chart library, nothing from outside): horizontal
// bars, stacked bars and lines. Every chart is role="img" with a title; the figures it shows are
// also in a table beside it (figures.js), the text alternative screen readers and tests read.
export const SVG = 'http://www.w3.org/2000/svg';

export function svgEl(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function chart(width, height, title) {
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.append(svgEl('title', {}, title));
  return svg;
}

/** A bar's tooltip: the same words the table says. */
function withTitle(node, text) {
  node.append(svgEl('title', {}, text));
  return node;
}

/**
 * One horizontal bar per row: `value(row)` a number, or null for a figure the API withheld, which
 * is drawn as a note (`missing(row)`), never as a zero-length bar.
 */
export function barChart({ title, rows, label, value, format, missing, marks = [] }) {
  const rowHeight = 22;
  const labelWidth = 130;
  const width = 460;
  const top = marks.length ? 16 : 0;
  const values = rows.map(value).filter((v) => v !== null);
  const max = Math.max(1, ...values, ...marks.map((m) => m.value ?? 0));
  const scale = (v) => ((width - labelWidth - 80) * v) / max;
  const svg = chart(width, top + rows.length * rowHeight + 4, title);
  rows.forEach((row, i) => {
    const y = top + i * rowHeight;
    const v = value(row);
    svg.append(svgEl('text', { class: 'label', x: 0, y: y + 14 }, label(row)));
    if (v === null) {
      svg.append(svgEl('text', { class: 'withheld', x: labelWidth, y: y + 14 }, missing(row)));
      return;
    }
    const w = Math.max(2, scale(v));
    svg.append(
      withTitle(
        svgEl('rect', { class: 'bar', x: labelWidth, y: y + 3, width: w, height: rowHeight - 8 }),
        `${label(row)}: ${format(v)}`,
      ),
    );
    svg.append(svgEl('text', { class: 'value', x: labelWidth + w + 4, y: y + 14 }, format(v)));
  });
  for (const mark of marks.filter((m) => m.value !== null)) {
    const x = labelWidth + scale(mark.value);
    svg.append(svgEl('line', { class: 'mark', x1: x, x2: x, y1: 12, y2: top + rows.length * rowHeight }));
    svg.append(
      svgEl(
        'text',
        { class: 'mark-label', x, y: 10, 'text-anchor': 'middle' },
        `${mark.label} ${format(mark.value)}`,
      ),
    );
  }
  return svg;
}

/**
 * One horizontal bar per row split into `parts` ({key, label, className, text?}): with `normalise`
 * every row fills the width (shares), otherwise all rows share one scale (counts). A row for which
 * `note(row)` returns text shows that text instead of a bar (a withheld figure).
 */
export function stackedChart({ title, rows, label, parts, normalise = false, note, width = 460 }) {
  const rowHeight = 22;
  const labelWidth = 130;
  const legend = 20;
  const barWidth = width - labelWidth - 70;
  const sum = (row) => parts.reduce((s, p) => s + (row[p.key] ?? 0), 0);
  const max = Math.max(1, ...rows.map(sum));
  const svg = chart(width, legend + rows.length * rowHeight + 4, title);
  let lx = labelWidth;
  for (const part of parts) {
    svg.append(svgEl('rect', { class: part.className, x: lx, y: 2, width: 10, height: 10 }));
    svg.append(svgEl('text', { class: 'value', x: lx + 14, y: 11 }, part.label));
    lx += 24 + part.label.length * 6;
  }
  rows.forEach((row, i) => {
    const y = legend + i * rowHeight;
    svg.append(svgEl('text', { class: 'label', x: 0, y: y + 14 }, label(row)));
    const withheld = note?.(row);
    if (withheld) {
      svg.append(svgEl('text', { class: 'withheld', x: labelWidth, y: y + 14 }, withheld));
      return;
    }
    const total = sum(row);
    let x = labelWidth;
    for (const part of parts) {
      const v = row[part.key] ?? 0;
      const w = (barWidth * v) / (normalise ? total || 1 : max);
      if (w > 0) {
        svg.append(
          withTitle(
            svgEl('rect', { class: `bar ${part.className}`, x, y: y + 3, width: w, height: rowHeight - 8 }),
            `${label(row)}, ${part.label}: ${part.text ? part.text(row) : v}`,
          ),
        );
      }
      x += w;
    }
    const text = normalise ? (parts[0].text?.(row) ?? '') : String(total);
    svg.append(svgEl('text', { class: 'value', x: labelWidth + barWidth + 4, y: y + 14 }, text));
  });
  return svg;
}

/**
 * Lines over shared x labels: `series` [{label, className, values: (number|null)[]}]; a null
 * breaks the line. `baseline` draws a reference value (e.g. 1.0, an average month); `note` is text
 * written on the chart (e.g. the series' status).
 */
export function lineChart({ title, xLabels, series, format, baseline, note, maxLabels = 12 }) {
  const width = 560;
  const height = 240;
  const left = 64;
  const right = 12;
  const top = note ? 30 : 12;
  const bottom = 28;
  const all = series.flatMap((s) => s.values).filter((v) => v !== null);
  if (baseline !== undefined) all.push(baseline);
  let min = all.length ? Math.min(...all) : 0;
  let max = all.length ? Math.max(...all) : 1;
  if (min === max) [min, max] = [min - 1, max + 1];
  const pad = (max - min) * 0.1;
  [min, max] = [min - pad, max + pad];
  const x = (i) => left + ((width - left - right) * i) / Math.max(1, xLabels.length - 1);
  const y = (v) => top + ((height - top - bottom) * (max - v)) / (max - min);
  const svg = chart(width, height, title);
  if (note) svg.append(svgEl('text', { class: 'chart-note', x: left, y: 16 }, note));
  svg.append(svgEl('line', { class: 'axis', x1: left, x2: left, y1: top, y2: height - bottom }));
  svg.append(
    svgEl('line', { class: 'axis', x1: left, x2: width - right, y1: height - bottom, y2: height - bottom }),
  );
  for (const v of [min + pad, (min + max) / 2, max - pad]) {
    svg.append(svgEl('text', { class: 'value', x: left - 4, y: y(v) + 3, 'text-anchor': 'end' }, format(v)));
  }
  const every = Math.ceil(xLabels.length / maxLabels);
  xLabels.forEach((text, i) => {
    if (i % every) return;
    svg.append(svgEl('text', { class: 'value', x: x(i), y: height - 10, 'text-anchor': 'middle' }, text));
  });
  if (baseline !== undefined) {
    svg.append(
      svgEl('line', { class: 'baseline', x1: left, x2: width - right, y1: y(baseline), y2: y(baseline) }),
    );
  }
  series.forEach((s) => {
    let d = '';
    s.values.forEach((v, i) => {
      if (v === null) return;
      d += `${d && s.values[i - 1] !== null ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
    });
    if (d) svg.append(svgEl('path', { class: `line ${s.className}`, d }));
    s.values.forEach((v, i) => {
      if (v === null) return;
      svg.append(
        withTitle(
          svgEl('circle', { class: `point ${s.className}`, cx: x(i), cy: y(v), r: 3 }),
          `${s.label}, ${xLabels[i]}: ${format(v)}`,
        ),
      );
    });
  });
  return svg;
}
