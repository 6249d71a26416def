// #velocity: GET /analytics/velocity. Median days to rent by neighbourhood (with the city's median
// and its Kaplan–Meier median marked), exits by reason (rented, withdrawn, expired), and stock and
// absorption; each chart with its table. Figures the API withheld read "suppressed" with the
// reason, never 0: medians under 10 rentals, and each figure the suppression rules withhold (named
// in the area's `withheld`: too few other accounts behind it, or recoverable from the city's).
import { getJson } from './api.js';
import { $ } from './dom.js';
import { cards, count, days, emptyNote, num, pct, table } from './figures.js';
import { initAnalyticPage, queryOf } from './analytic-page.js';
import { barChart, stackedChart } from './svg.js';

const SUPPRESSED = 'suppressed: fewer than 10 rentals';
// Short enough for the chart; market share's page and docs/analytics.md give the rule in full.
const MARKET_SUPPRESSED = 'suppressed: under 5 other accounts, or one over 25 %';
/** A count of the area, or "suppressed" when the API withheld it. */
const whole = (row, field) => (row[field] === null ? 'suppressed' : count.format(row[field]));
/** Whether the suppression rules withheld `field` of the area. */
const isWithheld = (row, field) => (row.withheld ?? []).includes(field);
const withheld = (row, field) => (isWithheld(row, field) ? MARKET_SUPPRESSED : undefined);
/** A stacked row is drawn only whole: with any part withheld, the reason instead. */
const withheldPart = (parts) => (row) =>
  parts.some((p) => row[p.key] === null) ? MARKET_SUPPRESSED : undefined;

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
      missing: (r) => withheld(r, 'median_days_to_rent') ?? SUPPRESSED,
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
        whole(r, 'rented'),
        r.suppressed ? 'suppressed' : days(r.median_days_to_rent),
        days(r.p25_days_to_rent),
        days(r.p75_days_to_rent),
        r.km_suppressed ? 'suppressed' : days(r.km_median_days_to_rent),
      ]),
    ),
  );
}

/**
 * One section of the page: a stacked chart of `parts` and a table, each with a row for the whole
 * city and one per neighbourhood; `cells` gives a row's cells after the area's name.
 */
function drawAreaSection(elementId, answer, { chartTitle, parts, tableTitle, headers, cells }) {
  const note = withheldPart(parts);
  const rows = [{ name: 'Whole city', ...answer.summary }, ...answer.by_neighborhood];
  $(elementId).replaceChildren(
    stackedChart({
      title: `${chartTitle}, ${answer.period}`,
      rows,
      label: (r) => r.name,
      parts,
      note,
    }),
    table(
      tableTitle,
      ['Area', ...headers],
      rows.map((r) => [r.name, ...cells(r)]),
    ),
  );
}

const exitParts = [
  { key: 'rented', label: 'rented', className: 'c1' },
  { key: 'withdrawn', label: 'withdrawn', className: 'c2' },
  { key: 'expired', label: 'expired', className: 'c3' },
];

function drawExits(answer) {
  drawAreaSection('velocity-exits', answer, {
    chartTitle: 'Exits by reason',
    parts: exitParts,
    tableTitle: 'Exits by reason',
    headers: ['Rented', 'Withdrawn', 'Expired', 'Median days to withdraw'],
    cells: (r) => [
      whole(r, 'rented'),
      whole(r, 'withdrawn'),
      whole(r, 'expired'),
      days(r.median_days_to_withdraw),
    ],
  });
}

const stockParts = [
  { key: 'new_listings', label: 'new listings', className: 'c4' },
  { key: 'active', label: 'active at the end', className: 'c1' },
];

function drawStock(answer) {
  drawAreaSection('velocity-stock', answer, {
    chartTitle: 'New listings and stock',
    parts: stockParts,
    tableTitle: 'Stock and absorption',
    headers: ['New listings', 'Active at the end', 'Average stock', 'Absorption'],
    cells: (r) => [
      whole(r, 'new_listings'),
      whole(r, 'active'),
      isWithheld(r, 'average_active') ? 'suppressed' : num(r.average_active),
      isWithheld(r, 'absorption') ? 'suppressed' : pct(r.absorption),
    ],
  });
}

initAnalyticPage('velocity', {
  loading: (form) => `Loading velocity for ${form.elements.type.value} in ${form.elements.period.value}…`,
  load: (key, form) => getJson(`/api/v1/analytics/velocity?${queryOf(form)}`, key),
  empty: (a) => {
    const s = a.summary;
    // A count is null when nobody (or too few accounts) is behind it: either way nothing to draw.
    const nothing =
      !a.by_neighborhood.length &&
      !s.rented &&
      !s.withdrawn &&
      !s.expired &&
      !s.active &&
      !s.new_listings &&
      !s.average_active;
    return nothing
      ? `No ${a.property_type} listings to show on the market in ${a.city}, ${a.period}.`
      : undefined;
  },
  draw: (a) => {
    const s = a.summary;
    cards($('velocity-summary'), [
      ['Median days to rent', s.suppressed ? 'suppressed' : days(s.median_days_to_rent)],
      ['Kaplan–Meier median', s.km_suppressed ? 'suppressed' : days(s.km_median_days_to_rent)],
      ['Rented', whole(s, 'rented')],
      ['Withdrawn · expired', `${whole(s, 'withdrawn')} · ${whole(s, 'expired')}`],
      ['New listings', whole(s, 'new_listings')],
      ['Active at the end', whole(s, 'active')],
      ['Absorption', isWithheld(s, 'absorption') ? 'suppressed' : pct(s.absorption)],
    ]);
    if (a.by_neighborhood.length) drawDays(a);
    else $('velocity-days').replaceChildren(emptyNote('No neighbourhood has listings in this period.'));
    drawExits(a);
    drawStock(a);
    $('velocity-definition').textContent = a.definition;
    const figures =
      s.rented === null && s.active === null
        ? `the city's figures are ${MARKET_SUPPRESSED}`
        : `${whole(s, 'rented')} rented, ${whole(s, 'active')} active`;
    return `${a.city}, ${a.property_type}, ${a.period}: ${figures}.`;
  },
});
