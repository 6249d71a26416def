// #velocity: GET /analytics/velocity. Median days to rent by neighbourhood (with the city's median
// and its Kaplan–Meier median marked), exits by reason (rented, withdrawn, expired), and stock and
// absorption; each chart with its table. Medians the API withheld (under 10 rentals) read
// "suppressed", never 0.
import { getJson } from './api.js';
import { $ } from './dom.js';
import { cards, count, days, emptyNote, num, pct, table } from './figures.js';
import { initAnalyticPage, queryOf } from './analytic-page.js';
import { barChart, stackedChart } from './svg.js';

const SUPPRESSED = 'suppressed: fewer than 10 rentals';

function drawDays(answer) {
  const rows = answer.by_neighborhood;
  const s = answer.summary;
  $('velocity-days').replaceChildren(
    barChart({
      title: `Median days to rent by neighbourhood, ${answer.city}, ${answer.period}`,
      rows,
      label: (r) => r.name,
      value: (r) => r.median_days_to_rent,
      format: days,
      missing: () => SUPPRESSED,
      marks: [
        { label: 'city', value: s.median_days_to_rent },
        { label: 'Kaplan–Meier', value: s.km_median_days_to_rent },
      ],
    }),
    table(
      'Days to rent by neighbourhood',
      ['Neighbourhood', 'Rented', 'Median', 'P25', 'P75', 'Kaplan–Meier median'],
      rows.map((r) => [
        r.name,
        count.format(r.rented),
        r.suppressed ? 'suppressed' : days(r.median_days_to_rent),
        days(r.p25_days_to_rent),
        days(r.p75_days_to_rent),
        r.km_suppressed ? 'suppressed' : days(r.km_median_days_to_rent),
      ]),
    ),
  );
}

const exitParts = [
  { key: 'rented', label: 'rented', className: 'c1' },
  { key: 'withdrawn', label: 'withdrawn', className: 'c2' },
  { key: 'expired', label: 'expired', className: 'c3' },
];

function drawExits(answer) {
  const rows = [{ name: 'Whole city', ...answer.summary }, ...answer.by_neighborhood];
  $('velocity-exits').replaceChildren(
    stackedChart({
      title: `Exits by reason, ${answer.period}`,
      rows,
      label: (r) => r.name,
      parts: exitParts,
    }),
    table(
      'Exits by reason',
      ['Area', 'Rented', 'Withdrawn', 'Expired', 'Median days to withdraw'],
      rows.map((r) => [
        r.name,
        count.format(r.rented),
        count.format(r.withdrawn),
        count.format(r.expired),
        days(r.median_days_to_withdraw),
      ]),
    ),
  );
}

const stockParts = [
  { key: 'new_listings', label: 'new listings', className: 'c4' },
  { key: 'active', label: 'active at the end', className: 'c1' },
];

function drawStock(answer) {
  const rows = [{ name: 'Whole city', ...answer.summary }, ...answer.by_neighborhood];
  $('velocity-stock').replaceChildren(
    stackedChart({
      title: `New listings and stock, ${answer.period}`,
      rows,
      label: (r) => r.name,
      parts: stockParts,
    }),
    table(
      'Stock and absorption',
      ['Area', 'New listings', 'Active at the end', 'Average stock', 'Absorption'],
      rows.map((r) => [
        r.name,
        count.format(r.new_listings),
        count.format(r.active),
        num(r.average_active),
        pct(r.absorption),
      ]),
    ),
  );
}

initAnalyticPage('velocity', {
  loading: (form) => `Loading velocity for ${form.elements.type.value} in ${form.elements.period.value}…`,
  load: (key, form) => getJson(`/api/v1/analytics/velocity?${queryOf(form)}`, key),
  empty: (a) => {
    const s = a.summary;
    const nothing =
      !a.by_neighborhood.length && !s.rented && !s.withdrawn && !s.expired && !s.active && !s.new_listings;
    return nothing ? `No ${a.property_type} listings on the market in ${a.city}, ${a.period}.` : undefined;
  },
  draw: (a) => {
    const s = a.summary;
    cards($('velocity-summary'), [
      ['Median days to rent', s.suppressed ? 'suppressed' : days(s.median_days_to_rent)],
      ['Kaplan–Meier median', s.km_suppressed ? 'suppressed' : days(s.km_median_days_to_rent)],
      ['Rented', count.format(s.rented)],
      ['Withdrawn · expired', `${count.format(s.withdrawn)} · ${count.format(s.expired)}`],
      ['New listings', count.format(s.new_listings)],
      ['Active at the end', count.format(s.active)],
      ['Absorption', pct(s.absorption)],
    ]);
    if (a.by_neighborhood.length) drawDays(a);
    else $('velocity-days').replaceChildren(emptyNote('No neighbourhood has listings in this period.'));
    drawExits(a);
    drawStock(a);
    $('velocity-definition').textContent = a.definition;
    return `${a.city}, ${a.property_type}, ${a.period}: ${count.format(s.rented)} rented, ${count.format(s.active)} active.`;
  },
});
