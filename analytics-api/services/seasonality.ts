// Seasonality (docs/analytics.md, "Seasonality"): a monthly series of mix-adjusted asking rents, new
// listings, views per listing on the market and days to rent, and a month-of-year index once the
// history covers a year. Rules: ../market-rules.ts. Every figure is the market's, so each month's
// figures follow market share's suppression rules (../suppression.ts): a figure with fewer than 5
// other accounts behind it, or one holding more than 25 % of the rest, is null, and so is a second
// month of its quarter where the quarter's figure (velocity, market share) minus the months shown
// would recover it.
import type { ClickHouseClient } from '@clickhouse/client';
import type { SeasonalityAnswer, SeasonalityMonth } from '../answers/market.ts';
import { cities } from '../../common/domain/cities.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';
import {
  bedroomClasses,
  MIN_EXITS_FOR_MEDIAN,
  mixAdjusted,
  monthOfYearIndex,
  round2,
  round3,
  round4,
  seasonalityStatus,
} from '../market-rules.ts';
import type { SeasonalityParams } from '../params.ts';
import {
  dailyFlows,
  monthlyBehind,
  monthlyRentals,
  monthlyRents,
  seasonalityMetrics,
  type SeasonalityMetric,
} from '../queries/seasonality.ts';
import { behindOf, withheldParts } from '../suppression.ts';
import { median, total } from '../stats.ts';

/** `count` months ending with `end` (YYYY-MM), oldest first, as YYYY-MM. */
export function monthsEnding(end: string, count: number): string[] {
  const [year, month] = end.split('-').map(Number) as [number, number];
  return Array.from({ length: count }, (_, i) =>
    new Date(Date.UTC(year, month - 1 - (count - 1 - i), 1)).toISOString().slice(0, 7),
  );
}

const classLabel = (bedrooms: number) =>
  bedrooms === 255 ? 'unknown' : bedrooms === 4 ? '4+' : String(bedrooms);

type Rows<Q extends { run: (...args: never[]) => Promise<{ rows: unknown[] }> }> = Awaited<
  ReturnType<Q['run']>
>['rows'];

/** Per month of the window: the rents of each bedroom class, and of all classes together. */
interface Rents {
  byClass: Map<string, Map<number, number>>; // month → class → median
  listed: Map<string, { n: number; median: number | null }>;
  /** Fixed weights of the bedroom classes over the whole window. */
  weights: Map<number, number>;
}

/** Listings entered, views and the sum of the end-of-day stock, per month. */
type Flows = Map<string, { entries: number; views: number; stockDays: number }>;

export async function seasonalityAnswer(
  clickhouse: ClickHouseClient,
  params: SeasonalityParams,
  isTest: boolean,
  accountId: string,
): Promise<SeasonalityAnswer> {
  const window = monthsEnding(params.end, params.months);
  const from = `${window[0]}-01`;
  const to = `${params.end}-01`;
  const [year, month] = params.end.split('-').map(Number) as [number, number];
  const lastDay = new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
  const scope = { isTest, city: params.city, type: params.type };
  const quarters = wholeQuarters(window);
  const [rents, flows, rentals, behind] = await Promise.all([
    monthlyRents.run(clickhouse, { ...scope, from, to }),
    dailyFlows.run(clickhouse, { ...scope, last: lastDay }),
    monthlyRentals.run(clickhouse, { ...scope, from, to }),
    monthlyBehind.run(clickhouse, {
      ...scope,
      account: accountId,
      months: quarters.map((m) => `${m}-01`),
    }),
  ]);

  const withheld = withheldByMonth(behind.rows, quarters);
  const listedShown = (month: string) => !withheld.get(month)?.has('listed');
  const mix = rentsByClass(rents.rows.filter((r) => listedShown(r.month.slice(0, 7))));
  const all = monthFigures(
    window,
    mix,
    flowsByMonth(flows.rows, from, lastDay),
    rentalDaysByMonth(rentals.rows),
  );
  const months = all.map((m) => withhold(m, withheld.get(m.month) ?? new Set(seasonalityMetrics)));
  // The history starts with the first month anyone listed (whether or not its figures are shown).
  const first = all.findIndex((m) => m.listed! > 0);
  const historyMonths = first < 0 ? 0 : months.length - first;
  const status = seasonalityStatus(historyMonths);
  return {
    city: cities[params.city],
    property_type: params.type,
    status,
    history_months: historyMonths,
    mix_weights: bedroomClasses
      .filter((c) => mix.weights.has(c))
      .map((c) => ({ bedrooms: classLabel(c), weight: round4(mix.weights.get(c)!) })),
    months,
    month_of_year_index: status === 'insufficient_history' ? null : monthOfYear(months, historyMonths),
  };
}

/** The months of the whole quarters `window` touches (YYYY-MM, oldest first). */
export function wholeQuarters(window: readonly string[]): string[] {
  const [y0, m0] = window[0]!.split('-').map(Number) as [number, number];
  const [y1, m1] = window[window.length - 1]!.split('-').map(Number) as [number, number];
  const firstMonth = m0 - ((m0 - 1) % 3); // 1, 4, 7 or 10
  const lastMonth = m1 - ((m1 - 1) % 3) + 2;
  const count = (y1 - y0) * 12 + lastMonth - firstMonth + 1;
  return Array.from({ length: count }, (_, i) =>
    new Date(Date.UTC(y0, firstMonth - 1 + i, 1)).toISOString().slice(0, 7),
  );
}

/** The figures each rule figure stands for. */
const figuresBehind: Record<SeasonalityMetric, readonly (keyof SeasonalityMonth)[]> = {
  listed: ['listed', 'median_price_tzs', 'raw_median_price_tzs'],
  new_listings: ['new_listings'],
  views: ['views', 'views_per_active_listing'],
  present: ['average_active', 'views_per_active_listing'],
  rented: ['rented', 'median_days_to_rent'],
};

/**
 * Per month, the rule figures withheld: each month's own rule, then, quarter by quarter, as many
 * more months as needed so the withheld ones cannot be recovered from the quarter's figure.
 */
function withheldByMonth(
  rows: Rows<typeof monthlyBehind>,
  quarterMonths: readonly string[],
): Map<string, Set<SeasonalityMetric>> {
  const byMonth = new Map(rows.map((r) => [r.month.slice(0, 7), r]));
  const withheld = new Map(quarterMonths.map((m) => [m, new Set<SeasonalityMetric>()]));
  for (let q = 0; q < quarterMonths.length; q += 3) {
    const quarter = quarterMonths.slice(q, q + 3);
    for (const metric of seasonalityMetrics) {
      const parts = quarter.map((m) => ({ key: m, behind: behindOf(byMonth.get(m), metric) }));
      for (const m of withheldParts(parts)) withheld.get(m)!.add(metric);
    }
  }
  return withheld;
}

/** A month's figures with those withheld set to null and named. */
function withhold(month: SeasonalityMonth, metrics: ReadonlySet<SeasonalityMetric>): SeasonalityMonth {
  const names = new Set([...metrics].flatMap((m) => figuresBehind[m]));
  const out: Record<string, unknown> = { ...month };
  for (const name of names) out[name] = null;
  return { ...(out as SeasonalityMonth), suppressed: names.size > 0, withheld: [...names].sort() };
}

function rentsByClass(rows: Rows<typeof monthlyRents>): Rents {
  const byClass = new Map<string, Map<number, number>>();
  const listed = new Map<string, { n: number; median: number | null }>();
  const classCounts = new Map<number, number>();
  for (const r of rows) {
    const m = r.month.slice(0, 7);
    if (r.all_classes === 1) listed.set(m, { n: r.listings, median: r.median_price });
    else if (r.listings > 0 && r.median_price !== null) {
      if (!byClass.has(m)) byClass.set(m, new Map());
      byClass.get(m)!.set(r.bedrooms, r.median_price);
      classCounts.set(r.bedrooms, (classCounts.get(r.bedrooms) ?? 0) + r.listings);
    }
  }
  const allListed = [...classCounts.values()].reduce((a, b) => a + b, 0);
  const weights = new Map([...classCounts].map(([c, n]) => [c, n / allListed]));
  return { byClass, listed, weights };
}

/** Stock per day (end of day) from the whole history, then per month of the window. */
function flowsByMonth(rows: Rows<typeof dailyFlows>, from: string, lastDay: string): Flows {
  const monthly: Flows = new Map();
  let stock = 0;
  let day = rows.length ? Date.parse(rows[0]![0]) : Date.parse(from);
  const byDay = new Map(rows.map(([d, net, entries, views]) => [d, { net, entries, views }]));
  for (const end = Date.parse(lastDay); day <= end; day += DAY_MS) {
    const d = new Date(day).toISOString().slice(0, 10);
    const flow = byDay.get(d);
    stock += flow?.net ?? 0;
    const m = d.slice(0, 7);
    if (d < from) continue;
    const acc = monthly.get(m) ?? { entries: 0, views: 0, stockDays: 0 };
    acc.entries += flow?.entries ?? 0;
    acc.views += flow?.views ?? 0;
    acc.stockDays += stock;
    monthly.set(m, acc);
  }
  return monthly;
}

/** Days on the market of the month's rentals, as [days, listings] pairs. */
function rentalDaysByMonth(rows: Rows<typeof monthlyRentals>): Map<string, [number, number][]> {
  const rentalDays = new Map<string, [number, number][]>();
  for (const [m, daysOnMarket, n] of rows) {
    const key = m.slice(0, 7);
    if (!rentalDays.has(key)) rentalDays.set(key, []);
    rentalDays.get(key)!.push([daysOnMarket, n]);
  }
  return rentalDays;
}

function monthFigures(
  window: string[],
  rents: Rents,
  monthly: Flows,
  rentalDays: Map<string, [number, number][]>,
): SeasonalityMonth[] {
  return window.map((m) => {
    const [y, mo] = m.split('-').map(Number) as [number, number];
    const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
    const flow = monthly.get(m) ?? { entries: 0, views: 0, stockDays: 0 };
    const averageActive = flow.stockDays / daysInMonth;
    const days = rentalDays.get(m) ?? [];
    const rented = total(days);
    return {
      month: m,
      median_price_tzs: mixAdjusted(rents.byClass.get(m) ?? new Map(), rents.weights),
      raw_median_price_tzs: rents.listed.get(m)?.median ?? null,
      listed: rents.listed.get(m)?.n ?? 0,
      new_listings: flow.entries,
      views: flow.views,
      average_active: round2(averageActive),
      views_per_active_listing: averageActive > 0 ? round3(flow.views / averageActive) : null,
      rented,
      median_days_to_rent: rented >= MIN_EXITS_FOR_MEDIAN ? median(days) : null,
      suppressed: false,
      withheld: [],
    };
  });
}

/** The month-of-year index of prices and new listings; null while either has too little history. */
function monthOfYear(
  months: SeasonalityMonth[],
  historyMonths: number,
): SeasonalityAnswer['month_of_year_index'] {
  const priceIndex = monthOfYearIndex(
    months.map((m) => ({ month: m.month, value: m.median_price_tzs })),
    historyMonths,
  );
  const listingsIndex = monthOfYearIndex(
    months.map((m) => ({ month: m.month, value: m.new_listings })),
    historyMonths,
  );
  if (!priceIndex || !listingsIndex) return null;
  return priceIndex.map((p, i) => ({
    month: p.month,
    price_index: p.index,
    new_listings_index: listingsIndex[i]!.index,
    years: p.years,
  }));
}
