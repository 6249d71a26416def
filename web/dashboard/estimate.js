// #estimate: GET /analytics/estimate for the unit in the form (pre-filled with a flat in Masaki,
// Dar es Salaam). The estimate and its interval on a scale with the comparables' rents, the
// comparables on the map (estimate-map.js) and in a table numbered as on the map.
import { ApiError, getJson } from './api.js';
import { $, el } from './dom.js';
import { drawEstimateMap } from './estimate-map.js';
import { cards, count, legend, money, num, table } from './figures.js';
import { initAnalyticPage, queryOf } from './analytic-page.js';
import { loadLocations } from './locations.js';
import { svgEl } from './svg.js';

/** The interval low–high as a band, the estimate as a mark, each comparable's rent as a dot. */
function intervalChart(a) {
  const { rent, low, high, currency } = a.estimate;
  const prices = a.comparables.map((c) => c.price);
  const min = Math.min(low, ...prices);
  const max = Math.max(high, ...prices);
  const width = 460;
  const left = 44; // room for the end labels
  const span = max - min || 1;
  const x = (v) => left + ((width - 2 * left) * (v - min)) / span;
  const svg = svgEl('svg', { viewBox: `0 0 ${width} 96`, role: 'img' });
  svg.append(
    svgEl(
      'title',
      {},
      `Estimate ${money(rent, currency)}, interval ${money(low, currency)} to ${money(high, currency)}`,
    ),
  );
  svg.append(
    svgEl('rect', { class: 'interval', x: x(low), y: 30, width: Math.max(2, x(high) - x(low)), height: 24 }),
  );
  svg.append(svgEl('line', { class: 'estimate-mark', x1: x(rent), x2: x(rent), y1: 22, y2: 62 }));
  svg.append(
    svgEl('text', { class: 'label', x: x(rent), y: 16, 'text-anchor': 'middle' }, money(rent, currency)),
  );
  svg.append(svgEl('text', { class: 'value', x: x(low), y: 76, 'text-anchor': 'middle' }, count.format(low)));
  svg.append(
    svgEl('text', { class: 'value', x: x(high), y: 76, 'text-anchor': 'middle' }, count.format(high)),
  );
  a.comparables.forEach((c, i) => {
    const dot = svgEl('circle', { class: 'comparable', cx: x(c.price), cy: 88, r: 4 });
    dot.append(svgEl('title', {}, `Comparable ${i + 1}: ${money(c.price, currency)}`));
    svg.append(dot);
  });
  return svg;
}

initAnalyticPage('estimate', {
  loading: () => 'Estimating the rent from nearby comparables…',
  load: async (key, form) => {
    const [answer, locations] = await Promise.all([
      // Too few comparables is no data rather than a refusal: the empty state, with the API's words.
      getJson(`/api/v1/analytics/estimate?${queryOf(form)}`, key).catch((error) => {
        if (error instanceof ApiError && error.code === 'insufficient_comparables') {
          return { insufficient: error.message };
        }
        throw error;
      }),
      loadLocations(),
    ]);
    if (answer.insufficient) return answer;
    const neighbourhoods = locations.neighbourhoods.filter((n) => n.city === answer.subject.city);
    return { ...answer, neighbourhoods };
  },
  empty: (a) => (a.insufficient ? `No estimate here: ${a.insufficient}` : undefined),
  draw: (a) => {
    const e = a.estimate;
    cards($('estimate-summary'), [
      ['Estimated asking rent', money(e.rent, e.currency)],
      ['Interval (low–high)', `${count.format(e.low)}–${count.format(e.high)}`],
      [
        'Interval',
        e.interval_calibrated ? `calibrated, ${num(e.interval_target * 100)} % target` : 'uncalibrated',
      ],
      [
        'Comparables',
        `${a.comparables.length} within ${a.radius_km} km, ${a.max_age_days} days` +
          // Off the market ones (rented, withdrawn) count but are not listed.
          (a.off_market_comparables ? `, and ${a.off_market_comparables} off the market` : ''),
      ],
    ]);
    $('estimate-interval').replaceChildren(
      legend([
        ['interval low–high', 'swatch interval'],
        ['estimate', 'swatch estimate'],
        ['comparables', 'swatch comparable'],
      ]),
      intervalChart(a),
    );
    $('estimate-comparables').replaceChildren(
      table(
        `Comparables (${e.currency})`,
        ['#', 'Rent', 'Distance', 'Age', 'Bedrooms', 'Bathrooms', 'Area', 'Similarity'],
        a.comparables.map((c, i) => [
          String(i + 1),
          count.format(c.price),
          // Another account's comparable comes as a band only; the account's own, as its distance.
          c.listing_id === null ? c.distance_band : `${num(c.distance_km)} km`,
          `${c.days_old} d`,
          c.bedrooms === null ? '–' : String(c.bedrooms),
          c.bathrooms === null ? '–' : String(c.bathrooms),
          c.area_sqm === null ? '–' : `${num(c.area_sqm)} m²`,
          num(c.similarity),
        ]),
      ),
    );
    drawEstimateMap($('estimate-map'), {
      subject: a.subject,
      comparables: a.comparables,
      radiusKm: a.radius_km,
      neighbourhoods: a.neighbourhoods,
    });
    $('estimate-definition').replaceChildren(el('span', a.definition));
    return `Estimated ${money(e.rent, e.currency)} (${count.format(e.low)}–${count.format(e.high)}) from ${a.comparables.length + (a.off_market_comparables ?? 0)} comparables.`;
  },
});
