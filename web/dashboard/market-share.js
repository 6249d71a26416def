// #market-share: GET /analytics/market-share. The account's own listings against the anonymous
// rest of the market, by neighbourhood, as shares of one bar. A figure the API suppressed (fewer
// than 5 other accounts, or one of them holding more than 25 % of the rest) is drawn as withheld
// with that reason and the account's own count, never as a zero share.
import { getJson } from './api.js';
import { $ } from './dom.js';
import { cards, count, pct, table } from './figures.js';
import { initAnalyticPage, queryOf } from './analytic-page.js';
import { stackedChart } from './svg.js';

const REASON = 'fewer than 5 other accounts, or one holds over 25 % of the rest';

const rest = (r) => (r.market_listings === null ? null : r.market_listings - r.own_listings);
const parts = [
  { key: 'own_listings', label: 'your listings', className: 'c1', text: (r) => pct(r.share) },
  {
    key: 'rest',
    label: 'rest of the market (anonymous)',
    className: 'c5',
    text: (r) => count.format(r.rest),
  },
];

initAnalyticPage('market-share', {
  loading: (form) =>
    `Loading your share of ${form.elements.type.value} listings, ${form.elements.period.value}…`,
  load: (key, form) => getJson(`/api/v1/analytics/market-share?${queryOf(form)}`, key),
  empty: (a) =>
    a.by_neighborhood.length || a.summary.own_listings || a.summary.market_listings
      ? undefined
      : `No ${a.property_type} listings on the market in ${a.city}, ${a.period}.`,
  draw: (a) => {
    const s = a.summary;
    cards($('market-share-summary'), [
      ['Your listings', count.format(s.own_listings)],
      ['Market listings', s.suppressed ? 'suppressed' : count.format(s.market_listings)],
      ['Your share', s.suppressed ? 'suppressed' : pct(s.share)],
      ['Share of new listings', s.new_listings_suppressed ? 'suppressed' : pct(s.new_listings_share)],
      ['Share of rentals', s.rented_suppressed ? 'suppressed' : pct(s.rented_share)],
      ['Share of views', s.views_suppressed ? 'suppressed' : pct(s.views_share)],
    ]);
    const rows = [{ name: 'Whole city', ...s }, ...a.by_neighborhood].map((r) => ({ ...r, rest: rest(r) }));
    $('market-share-chart').replaceChildren(
      stackedChart({
        title: `Your share of ${a.property_type} listings by neighbourhood, ${a.city}, ${a.period}`,
        rows,
        label: (r) => r.name,
        parts,
        normalise: true,
        width: 720,
        note: (r) =>
          r.suppressed ? `suppressed (${count.format(r.own_listings)} yours): ${REASON}` : undefined,
      }),
      table(
        'Market share by neighbourhood',
        ['Area', 'Your listings', 'Market listings', 'Your share', 'Status'],
        rows.map((r) => [
          r.name,
          count.format(r.own_listings),
          r.suppressed ? 'suppressed' : count.format(r.market_listings),
          r.suppressed ? 'suppressed' : pct(r.share),
          r.suppressed ? `suppressed: ${REASON}` : 'shown',
        ]),
      ),
    );
    return `${a.city}, ${a.property_type}, ${a.period}: ${count.format(s.own_listings)} of your listings on the market.`;
  },
});
