// The estimate's point and its comparables on an offline SVG map (no tiles, as map.js): the search
// radius as a ring around the point, each comparable (the API gives their places to about 100 m)
// as a numbered dot matching the table, and the neighbourhoods in view as labels.
import { svgEl } from './svg.js';

const KM_PER_DEGREE = 111.32;

export function drawEstimateMap(container, { subject, comparables, radiusKm, neighbourhoods }) {
  const width = 460;
  const height = 360;
  const kmPerLng = KM_PER_DEGREE * Math.cos((subject.latitude * Math.PI) / 180);
  const placed = comparables.filter((c) => c.latitude !== null && c.longitude !== null);
  const farKm = Math.max(
    radiusKm,
    ...placed.map((c) =>
      Math.max(
        Math.abs(c.latitude - subject.latitude) * KM_PER_DEGREE,
        Math.abs(c.longitude - subject.longitude) * kmPerLng,
      ),
    ),
  );
  const halfKm = farKm * 1.15;
  const scale = Math.min(width, height) / 2 / halfKm; // px per km
  const x = (lng) => width / 2 + (lng - subject.longitude) * kmPerLng * scale;
  const y = (lat) => height / 2 - (lat - subject.latitude) * KM_PER_DEGREE * scale;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.append(svgEl('title', {}, `The point and its ${placed.length} comparables within ${radiusKm} km`));
  svg.append(svgEl('rect', { class: 'ground', x: 0, y: 0, width, height }));
  svg.append(svgEl('circle', { class: 'radius', cx: width / 2, cy: height / 2, r: radiusKm * scale }));
  svg.append(
    svgEl(
      'text',
      { class: 'value', x: width / 2 + 4, y: height / 2 - radiusKm * scale - 4 },
      `${radiusKm} km`,
    ),
  );
  for (const hood of neighbourhoods) {
    const hx = x(hood.longitude);
    const hy = y(hood.latitude);
    if (hx < 0 || hx > width || hy < 0 || hy > height) continue;
    svg.append(svgEl('circle', { class: 'hood', cx: hx, cy: hy, r: 2 }));
    svg.append(svgEl('text', { class: 'hood-label', x: hx + 4, y: hy - 3 }, hood.name));
  }
  placed.forEach((c, i) => {
    const dot = svgEl('circle', { class: 'comparable', cx: x(c.longitude), cy: y(c.latitude), r: 6 });
    dot.append(svgEl('title', {}, `Comparable ${i + 1}: ${c.price}, ${c.distance_km} km`));
    svg.append(dot);
    svg.append(
      svgEl(
        'text',
        { class: 'comparable-label', x: x(c.longitude), y: y(c.latitude) + 3, 'text-anchor': 'middle' },
        String(i + 1),
      ),
    );
  });
  const cx = width / 2;
  const cy = height / 2;
  const subjectMark = svgEl('path', {
    class: 'subject',
    d: `M${cx},${cy - 9}L${cx + 8},${cy + 6}L${cx - 8},${cy + 6}Z`,
  });
  subjectMark.append(svgEl('title', {}, 'The estimated unit'));
  svg.append(subjectMark);
  container.replaceChildren(svg);
}
