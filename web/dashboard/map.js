// Draws the heatmap offline as SVG, zoomed to the cells: the city's outline (a circle of its
// radius around the centre, from the shipped locations), the H3 hexagons of
// GET /analytics/heatmap?format=geojson coloured by demand_score, and the neighbourhood points. No tiles, no map library: an equirectangular
// projection is exact enough for a city of a few tens of kilometres.
const SVG = 'http://www.w3.org/2000/svg';
const KM_PER_DEGREE = 111.32;

function element(name, attributes = {}, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Demand 0 → pale, 1 (market average) → orange, ≥ 3 → dark red. */
export function demandColour(score) {
  const t = Math.max(0, Math.min(1, Math.log1p(score) / Math.log1p(3)));
  const stops = [
    [255, 245, 214],
    [253, 174, 97],
    [215, 48, 39],
    [127, 0, 0],
  ];
  const at = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(at));
  const f = at - i;
  const mix = stops[i].map((c, k) => Math.round(c + (stops[i + 1][k] - c) * f));
  return `rgb(${mix.join(',')})`;
}

/** The box of the city's circle: west,south,east,north (the heatmap's bounds order). */
export function cityBounds(city) {
  const dLat = city.radius_km / KM_PER_DEGREE;
  const dLng = city.radius_km / (KM_PER_DEGREE * Math.cos((city.latitude * Math.PI) / 180));
  return [city.longitude - dLng, city.latitude - dLat, city.longitude + dLng, city.latitude + dLat];
}

/**
 * The part of the city to show: the hexagons with at least `minKm` around them (500 m cells are
 * specks on a 60 km city), or the whole city when there are none.
 */
function viewBounds(city, features, minKm = 12) {
  if (!features.length) return cityBounds(city);
  const points = features.flatMap((f) => f.geometry.coordinates[0]);
  const lngs = points.map((p) => p[0]);
  const lats = points.map((p) => p[1]);
  const cx = (Math.min(...lngs) + Math.max(...lngs)) / 2;
  const cy = (Math.min(...lats) + Math.max(...lats)) / 2;
  const kmPerLng = KM_PER_DEGREE * Math.cos((cy * Math.PI) / 180);
  const halfKm = Math.max(
    minKm / 2,
    ((Math.max(...lngs) - Math.min(...lngs)) * kmPerLng) / 2 + 1,
    ((Math.max(...lats) - Math.min(...lats)) * KM_PER_DEGREE) / 2 + 1,
  );
  return [
    cx - halfKm / kmPerLng,
    cy - halfKm / KM_PER_DEGREE,
    cx + halfKm / kmPerLng,
    cy + halfKm / KM_PER_DEGREE,
  ];
}

export function drawMap(container, { city, neighbourhoods, collection }) {
  const [west, south, east, north] = viewBounds(city, collection.features);
  const width = 640;
  const scale = width / (east - west);
  const yScale = scale / Math.cos((city.latitude * Math.PI) / 180);
  const height = Math.round((north - south) * yScale);
  const x = (lng) => ((lng - west) * scale).toFixed(1);
  const y = (lat) => ((north - lat) * yScale).toFixed(1);

  const svg = element('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
  svg.append(element('title', {}, `Demand heatmap of ${city.name}`));
  svg.append(
    element('circle', {
      class: 'outline',
      cx: x(city.longitude),
      cy: y(city.latitude),
      r: ((city.radius_km / (KM_PER_DEGREE * Math.cos((city.latitude * Math.PI) / 180))) * scale).toFixed(1),
    }),
  );
  for (const feature of collection.features) {
    const ring = feature.geometry.coordinates[0];
    const d = `M${ring.map(([lng, lat]) => `${x(lng)},${y(lat)}`).join('L')}Z`;
    const p = feature.properties;
    const hex = element('path', {
      class: 'hex',
      d,
      fill: demandColour(p.demand_score),
      'data-h3': feature.id,
    });
    hex.append(
      element(
        'title',
        {},
        `${feature.id}: demand ${p.demand_score}, ${p.listing_count} listings, avg ${Math.round(p.avg_price).toLocaleString()} TZS`,
      ),
    );
    svg.append(hex);
  }
  const inView = (lng, lat) => lng >= west && lng <= east && lat >= south && lat <= north;
  for (const hood of neighbourhoods.filter((n) => inView(n.longitude, n.latitude))) {
    svg.append(element('circle', { class: 'hood', cx: x(hood.longitude), cy: y(hood.latitude), r: 2.5 }));
    svg.append(
      element(
        'text',
        { class: 'hood-label', x: Number(x(hood.longitude)) + 4, y: Number(y(hood.latitude)) - 3 },
        hood.name,
      ),
    );
  }
  container.replaceChildren(svg);
}

export function drawLegend(container) {
  const parts = [document.createTextNode('demand')];
  for (const score of [0, 0.5, 1, 2, 3]) {
    const swatch = document.createElement('i');
    swatch.style.background = demandColour(score);
    swatch.title = String(score);
    parts.push(swatch, document.createTextNode(score === 3 ? '≥3' : String(score)));
  }
  parts.push(document.createTextNode(' (1 = market average)'));
  container.replaceChildren(...parts);
}
