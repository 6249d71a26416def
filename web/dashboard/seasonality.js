// #seasonality: GET /analytics/seasonality. The month-of-year index (1.0 = an average month) of
// the mix-adjusted rent and of new listings as lines, with the answer's status written on the
// chart (insufficient_history draws no index: under 12 months there is none), and the monthly
// series it comes from; each chart with its table. Figures the suppression rules withhold (named in
// the month's `withheld`) read "suppressed", never 0.
import { getJson } from './api.js';
import { $ } from './dom.js';
import { cards, count, emptyNote, legend, money, num, table } from './figures.js';
import { initAnalyticPage, queryOf } from './analytic-page.js';
import { lineChart } from './svg.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const STATUS = {
  insufficient_history: 'insufficient history (under 12 months): no index yet',
  provisional: 'provisional (12–23 months of history)',
  ok: 'ok (24 months of history or more)',
};

function statusNote(a) {
  return `Status: ${STATUS[a.status] ?? a.status} · ${a.history_months} months of history`;
}

function drawIndex(a) {
  const index = a.month_of_year_index ?? [];
  const at = (m, field) => index.find((e) => e.month === m)?.[field] ?? null;
  const series = [
    { label: 'rent index', className: 'c1', values: MONTHS.map((_, i) => at(i + 1, 'price_index')) },
    {
      label: 'new listings index',
      className: 'c2',
      values: MONTHS.map((_, i) => at(i + 1, 'new_listings_index')),
    },
  ];
  $('seasonality-index').replaceChildren(
    legend([
      ['rent index', 'swatch c1'],
      ['new listings index', 'swatch c2'],
      ['1.0 = an average month', 'swatch baseline'],
    ]),
    lineChart({
      title: `Month-of-year index, ${a.city}, ${a.property_type}. ${statusNote(a)}`,
      xLabels: MONTHS,
      series,
      format: (v) => v.toFixed(2),
      baseline: 1,
      note: statusNote(a),
    }),
    index.length
      ? table(
          'Month-of-year index',
          ['Month', 'Rent index', 'New listings index', 'Years'],
          index.map((e) => [
            MONTHS[e.month - 1],
            num(e.price_index),
            num(e.new_listings_index),
            String(e.years),
          ]),
        )
      : emptyNote(`No month-of-year index: ${STATUS[a.status] ?? a.status}.`),
  );
}

/** A count of the month, or "suppressed" when the API withheld it. */
const whole = (v) => (v === null ? 'suppressed' : count.format(v));

function drawSeries(a) {
  const months = a.months;
  $('seasonality-series').replaceChildren(
    legend([['mix-adjusted median rent', 'swatch c1']]),
    lineChart({
      title: `Monthly mix-adjusted median rent, ${a.city}, ${a.property_type}`,
      xLabels: months.map((m) => m.month),
      series: [{ label: 'median rent', className: 'c1', values: months.map((m) => m.median_price_tzs) }],
      format: (v) => count.format(v),
      maxLabels: 6,
    }),
    table(
      'Monthly series',
      ['Month', 'Median rent (mix-adjusted)', 'Listed', 'New listings', 'Views', 'Rented'],
      months.map((m) => [
        m.month,
        m.withheld?.includes('median_price_tzs') ? 'suppressed' : money(m.median_price_tzs),
        whole(m.listed),
        whole(m.new_listings),
        whole(m.views),
        whole(m.rented),
      ]),
    ),
  );
}

initAnalyticPage('seasonality', {
  loading: (form) =>
    `Loading ${form.elements.months.value} months of ${form.elements.type.value} seasonality…`,
  load: (key, form) => getJson(`/api/v1/analytics/seasonality?${queryOf(form)}`, key),
  empty: (a) =>
    // history_months counts from the first month anyone listed, whether or not its figures show.
    a.history_months > 0 || a.months.some((m) => m.listed || m.new_listings || m.views || m.rented)
      ? undefined
      : `No ${a.property_type} listings in ${a.city} in these ${a.months.length} months.`,
  draw: (a) => {
    cards($('seasonality-summary'), [
      ['Status', a.status],
      ['History', `${a.history_months} months`],
      ['Months shown', String(a.months.length)],
      [
        'Listed in the window',
        a.months.some((m) => m.listed === null)
          ? 'suppressed in some months'
          : count.format(a.months.reduce((s, m) => s + m.listed, 0)),
      ],
    ]);
    drawIndex(a);
    drawSeries(a);
    return `${a.city}, ${a.property_type}: ${statusNote(a)}.`;
  },
});
