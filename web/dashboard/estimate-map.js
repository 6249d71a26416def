// The estimate's point and its comparables on an offline SVG map (no tiles, as map.js): the
// neighbourhoods around the point where they are, the search radius as a ring, and each comparable
// as a numbered dot (numbered as in the table) at its distance from the point. The API gives a
// comparable's distance only (other accounts' listings as the upper bound of a distance band:
// they are never located), so the dots are spread
// evenly around their distances' circles and the map says that their direction means nothing.
import { svgEl } from './svg.js';

const KM_PER_DEGREE = 111.32;

export function drawEstimateMap(container, { subject, comparables, radiusKm, neighbourhoods }) {
  const width = 460;
  const height = 380;
  const top = 0;
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
  svg.append(svgEl('circle', { class: 'radius', cx, cy, r: radiusKm * scale }));
  svg.append(svgEl('text', { class: 'value', x: cx + 4, y: cy - radiusKm * scale - 4 }, `${radiusKm} km`));
  for (const hood of neighbourhoods) {
    const hx = x(hood.longitude);
    const hy = y(hood.latitude);
    if (hx < 0 || hx > width || hy < top || hy > height) continue;
    svg.append(svgEl('circle', { class: 'hood', cx: hx, cy: hy, r: 2 }));
    svg.append(svgEl('text', { class: 'hood-label', x: hx + 4, y: hy - 3 }, hood.name));
  }
  // Comparables at one distance share a circle, spread evenly around it; the circle is at least
  // as wide as its dots need (distances come rounded, many may be "0 km").
  const groups = new Map();
  comparables.forEach((c, i) => groups.set(c.distance_km, [...(groups.get(c.distance_km) ?? []), i]));
  for (const [km, members] of groups) {
    const r = Math.max(km * scale, 24, (members.length * 16) / (2 * Math.PI));
    members.forEach((i, k) => {
      const c = comparables[i];
      const angle = -Math.PI / 2 + (2 * Math.PI * k) / members.length;
      const px = cx + Math.cos(angle) * r;
      const py = cy + Math.sin(angle) * r;
      const dot = svgEl('circle', { class: 'comparable', cx: px, cy: py, r: 7 });
      const away = c.listing_id === null ? c.distance_band : `${c.distance_km} km`;
      dot.append(svgEl('title', {}, `Comparable ${i + 1}: ${c.price}, ${away} away`));
      svg.append(dot);
      svg.append(
        svgEl(
          'text',
          { class: 'comparable-label', x: px, y: py + 3, 'text-anchor': 'middle' },
          String(i + 1),
        ),
      );
    });
  }
  const subjectMark = svgEl('path', {
    class: 'subject',
    d: `M${cx},${cy - 9}L${cx + 8},${cy + 6}L${cx - 8},${cy + 6}Z`,
  });
  subjectMark.append(svgEl('title', {}, 'The estimated unit'));
  svg.append(subjectMark);
  container.replaceChildren(svg);
}
