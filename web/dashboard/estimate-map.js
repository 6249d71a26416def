// The estimate's point and its comparables on an offline SVG map (no tiles, as map.js): the
// neighbourhoods around the point where they are, the search radius as a ring, and each comparable
// as a numbered dot (numbered as in the table) at its distance from the point. The API gives a
// comparable's distance only (other accounts' listings are never located), so the dots are spread
// evenly around their distances' circles and the map says that their direction means nothing.
import { svgEl } from './svg.js';

const KM_PER_DEGREE = 111.32;

export function drawEstimateMap(container, { subject, comparables, radiusKm, neighbourhoods }) {
  const width = 460;
  const height = 380;
  const top = 22;
  const kmPerLng = KM_PER_DEGREE * Math.cos((subject.latitude * Math.PI) / 180);
  const halfKm = Math.max(radiusKm, ...comparables.map((c) => c.distance_km)) * 1.2;
  const scale = (Math.min(width, height - top) / 2 / halfKm) * 0.95; // px per km
  const cx = width / 2;
  const cy = top + (height - top) / 2;
  const x = (lng) => cx + (lng - subject.longitude) * kmPerLng * scale;
  const y = (lat) => cy - (lat - subject.latitude) * KM_PER_DEGREE * scale;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.append(
    svgEl(
      'title',
      {},
      `The unit and its ${comparables.length} comparables by distance, within ${radiusKm} km`,
    ),
  );
  svg.append(svgEl('rect', { class: 'ground', x: 0, y: top, width, height: height - top }));
  svg.append(
    svgEl(
      'text',
      { class: 'chart-note', x: 4, y: 15 },
      'Comparables at their distance; their direction is not given by the API',
    ),
  );
  svg.append(svgEl('circle', { class: 'radius', cx, cy, r: radiusKm * scale }));
  svg.append(svgEl('text', { class: 'value', x: cx + 4, y: cy - radiusKm * scale - 4 }, `${radiusKm} km`));
  for (const hood of neighbourhoods) {
    const hx = x(hood.longitude);
    const hy = y(hood.latitude);
    if (hx < 0 || hx > width || hy < top || hy > height) continue;
    svg.append(svgEl('circle', { class: 'hood', cx: hx, cy: hy, r: 2 }));
    svg.append(svgEl('text', { class: 'hood-label', x: hx + 4, y: hy - 3 }, hood.name));
  }
  // Distances come rounded to 0.5 km: "0 km" ones go on a small inner ring, not onto the unit.
  const inner = halfKm * 0.12;
  comparables.forEach((c, i) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * i) / comparables.length;
    const km = Math.max(c.distance_km, inner);
    const px = cx + Math.cos(angle) * km * scale;
    const py = cy + Math.sin(angle) * km * scale;
    const dot = svgEl('circle', { class: 'comparable', cx: px, cy: py, r: 7 });
    dot.append(svgEl('title', {}, `Comparable ${i + 1}: ${c.price}, ${c.distance_km} km away`));
    svg.append(dot);
    svg.append(
      svgEl('text', { class: 'comparable-label', x: px, y: py + 3, 'text-anchor': 'middle' }, String(i + 1)),
    );
  });
  const subjectMark = svgEl('path', {
    class: 'subject',
    d: `M${cx},${cy - 9}L${cx + 8},${cy + 6}L${cx - 8},${cy + 6}Z`,
  });
  subjectMark.append(svgEl('title', {}, 'The estimated unit'));
  svg.append(subjectMark);
  container.replaceChildren(svg);
}
