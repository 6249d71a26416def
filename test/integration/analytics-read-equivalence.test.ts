// The heatmap's and the pricing's reads answer exactly what their former definitions answered, on
// random listings and views of years of this file's own (the former statements are kept here
// verbatim): the heatmap's parent-cell filter against the test of every h3_index range, and the
// pricing's reads against the four statements they replaced (prices of the period with totals,
// medians of the quarter before, views per neighbourhood, market totals): computed at request time,
// and from prepared summaries while those count what is stored.
import { latLngToCell } from 'h3-js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bounds } from '../../analytics-api/geo/bounds.ts';
import { parentsForBounds, rangesForBounds } from '../../analytics-api/geo/h3-ranges.ts';
import { cellStats, coveringSpans, INDEX_SPANS } from '../../analytics-api/queries/heatmap.ts';
import type { PricingRow } from '../../analytics-api/queries/pricing.ts';
import { pricingFigures, pricingScope, type PricingFigures } from '../../analytics-api/services/pricing.ts';
import { createPricingLag } from '../../analytics-api/services/pricing-lag.ts';
import { preparePriceSummaries } from '../../common/warehouse/price-summaries.ts';
import { testClickHouse } from '../support/api.ts';
import { claimYear, insertListings, insertViews, type ListingRow } from '../support/analytics-fixtures.ts';

const formerCells = `
  SELECT toUInt32(intDiv(h3_index, 4294967296)) AS cell_high, toUInt32(h3_index % 4294967296) AS cell_low,
    sum(listings) AS listings, sum(price_tzs_sum) AS price_tzs_sum, sum(views) AS views
  FROM cell_quarter_stats
  WHERE is_test = {isTest:UInt8} AND quarter = {quarterStart:Date}
    AND (h3_index BETWEEN {span_lo:Array(UInt64)}[1] AND {span_hi:Array(UInt64)}[1]
      OR h3_index BETWEEN {span_lo:Array(UInt64)}[2] AND {span_hi:Array(UInt64)}[2]
      OR h3_index BETWEEN {span_lo:Array(UInt64)}[3] AND {span_hi:Array(UInt64)}[3]
      OR h3_index BETWEEN {span_lo:Array(UInt64)}[4] AND {span_hi:Array(UInt64)}[4])
    AND arrayExists((lo, hi) -> h3_index BETWEEN lo AND hi, {range_lo:Array(UInt64)}, {range_hi:Array(UInt64)})
    AND (isNull({type:Nullable(String)}) OR property_type = {type:Nullable(String)})
  GROUP BY h3_index
  HAVING listings > 0`;

const formerPrices = `
  SELECT
    neighbourhood,
    sum(n) AS listings,
    arrayReduce('avg', quantilesExactWeighted(0.5, 0.500000001)(price_tzs, n)) AS median_price,
    sum(price_tzs * n) / sum(n) AS avg_price,
    min(price_tzs) AS min_price,
    max(price_tzs) AS max_price
  FROM (
    SELECT neighbourhood, price_tzs, listings AS n
    FROM neighbourhood_quarter_prices
    WHERE is_test = {isTest:UInt8} AND city = {city:String} AND property_type = {type:String}
      AND quarter = {quarterStart:Date}
  )
  GROUP BY neighbourhood WITH TOTALS`;
const formerMedians = `
  SELECT neighbourhood, sum(n) AS listings,
    arrayReduce('avg', quantilesExactWeighted(0.5, 0.500000001)(price_tzs, n)) AS median_price
  FROM (
    SELECT neighbourhood, price_tzs, listings AS n
    FROM neighbourhood_quarter_prices
    WHERE is_test = {isTest:UInt8} AND city = {city:String} AND property_type = {type:String}
      AND quarter = {previousStart:Date}
  )
  GROUP BY neighbourhood`;
const formerViews = `
  SELECT neighbourhood, sum(views) AS views
  FROM neighbourhood_quarter_stats
  WHERE is_test = {isTest:UInt8} AND quarter = {quarterStart:Date} AND property_type = {type:String}
    AND city = {city:String}
  GROUP BY neighbourhood`;
const formerMarket = `
  SELECT sum(listings) AS listings, sum(views) AS views
  FROM neighbourhood_quarter_stats
  WHERE is_test = {isTest:UInt8} AND quarter = {quarterStart:Date}
    AND ((isNull({type:Nullable(String)}) AND property_type != 'unknown')
      OR property_type = {type:Nullable(String)})`;

// A seeded generator, so a failure can be replayed (the seed is printed with it).
const seed = Date.now() % 1_000_000;
let state = seed;
const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
/** Sums of doubles added in another order agree to about 1e-15 of their size. */
const sameSum = (value: number) => expect.closeTo(value, 9 - Math.ceil(Math.log10(Math.abs(value) + 1)));

const types = ['apartment', 'house', 'studio'] as const;
const neighbourhoods = ['', 'Iyunga', 'Forest', 'Sisimba', 'Mwanjelwa'];
// Arusha: the market beyond Mbeya, with a name Mbeya has too and one that has views only.
const arushaNeighbourhoods = ['', 'Njiro', 'Forest', 'Sakina'];
const quarters = ['01-01', '04-01', '07-01', '10-01'];
// Around Mbeya: boxes from a few streets to the whole town, and points in and around them.
const boxes: Bounds[] = [
  { west: 33.44, south: -8.92, east: 33.47, north: -8.9 },
  { west: 33.35, south: -8.98, east: 33.55, north: -8.85 },
  { west: 33.1, south: -9.2, east: 33.8, north: -8.6 },
];

/** Rents as asked: mostly round amounts, some exact, a few extremes. */
function price(): number {
  const r = random();
  if (r < 0.6) return 50_000 * (1 + Math.floor(random() * 40));
  if (r < 0.9) return 1_000 * (100 + Math.floor(random() * 3_000));
  if (r < 0.97) return 100_000 + Math.floor(random() * 2_000_000) + Math.round(random() * 100) / 100;
  return pick([1, 2, 999, 1e9, 123_456_789_012]);
}

/** `${year}-MM-DD 12:00:00` on a random day of the quarter starting at `quarter` (MM-DD). */
const dayOf = (year: number, quarter: string) =>
  `${year}-${quarter.slice(0, 2)}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')} 12:00:00`;

let year: number;
const clickhouse = testClickHouse();

/**
 * What the warehouse holds of this file's years, for the message of a count check: when too few
 * cells or prices were found, it tells a missing insert from a dropped partition or a lost view row.
 */
async function storedOfYears(): Promise<string> {
  const result = await clickhouse.query({
    query: `SELECT
      (SELECT count() FROM listings WHERE toYear(listed_at) = {year:UInt16}) AS listings,
      (SELECT count() FROM listings WHERE toYear(listed_at) = {year:UInt16} - 1) AS listings_year_before,
      (SELECT sum(listings) FROM cell_quarter_stats WHERE toYear(quarter) = {year:UInt16}) AS cell_listings,
      (SELECT sum(listings) FROM neighbourhood_quarter_prices WHERE toYear(quarter) = {year:UInt16}) AS price_listings`,
    query_params: { year },
    format: 'JSONEachRow',
  });
  return `year ${year}: ${JSON.stringify(await result.json())}`;
}

beforeAll(async () => {
  // Two years: the data's, and the year before for the quarter before its Q1.
  year = (await claimYear(undefined, 2)) + 1;
  // Several inserts: the aggregates then hold several parts whose rows of one key are not yet
  // summed, as between merges in production.
  for (let batch = 0; batch < 4; batch++) {
    const rows: ListingRow[] = [];
    // A few hundred listings per type and quarter in batch 0, then sparse ones (1–2 per group).
    const count = batch === 0 ? 3_000 : 40;
    for (let i = 0; i < count; i++) {
      const lat = -9.25 + random() * 0.7;
      const lng = 33.05 + random() * 0.8;
      rows.push({
        is_test: random() < 0.1 ? 1 : 0,
        listed_at: dayOf(year, pick(quarters)),
        property_type: pick(types),
        price_tzs: price(),
        city: 'mbeya',
        neighbourhood: pick(neighbourhoods),
        h3_index: BigInt(`0x${latLngToCell(lat, lng, 8)}`).toString(),
      });
    }
    // Outside Mbeya's period: the year before's last quarter, and Arusha (the market).
    for (let i = 0; i < count / 10; i++) {
      rows.push({
        is_test: random() < 0.1 ? 1 : 0,
        listed_at: random() < 0.5 ? dayOf(year - 1, '10-01') : dayOf(year, pick(quarters)),
        property_type: pick(types),
        price_tzs: price(),
        city: random() < 0.5 ? 'mbeya' : 'arusha',
        neighbourhood: pick(arushaNeighbourhoods.slice(0, 3)),
      });
    }
    await insertListings(rows);
    await insertViews(
      Array.from({ length: count / 20 }, () => ({
        is_test: random() < 0.1 ? (1 as const) : (0 as const),
        viewed_at: dayOf(year, pick(quarters)),
        property_type: pick(types),
        ...(random() < 0.6
          ? { city: 'mbeya', neighbourhood: pick(neighbourhoods) }
          : { city: 'arusha', neighbourhood: pick(arushaNeighbourhoods) }),
        count: 1 + Math.floor(random() * 4),
      })),
    );
  }
});

describe('the heatmap read against its former definition', () => {
  it(`happy: heatmap: the same cells of boxes of every size (seed ${seed})`, async () => {
    let cells = 0;
    for (const box of boxes) {
      const ranges = rangesForBounds(box);
      const spans = coveringSpans(ranges, INDEX_SPANS);
      const covering = parentsForBounds(box);
      for (const isTest of [false, true]) {
        for (const type of [undefined, ...types]) {
          for (const quarter of quarters) {
            const quarterStart = `${year}-${quarter}`;
            const former = await (
              await clickhouse.query({
                query: formerCells,
                query_params: {
                  isTest: isTest ? 1 : 0,
                  quarterStart,
                  type: type ?? null,
                  range_lo: ranges.map((r) => r.lo),
                  range_hi: ranges.map((r) => r.hi),
                  span_lo: spans.lo,
                  span_hi: spans.hi,
                },
                format: 'JSONCompact',
                clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
              })
            ).json<unknown[]>();
            const now = await cellStats.run(clickhouse, {
              isTest,
              quarterStart,
              type,
              parentResolution: covering.resolution,
              parents: covering.parents.map((parent) => BigInt(`0x${parent}`)),
            });
            const order = (a: unknown[], b: unknown[]) =>
              Number(a[0]) - Number(b[0]) || Number(a[1]) - Number(b[1]);
            expect(now.rows.sort(order)).toEqual(
              (former.data as number[][])
                .sort(order)
                .map(([h, l, n, sum, views]) => [h, l, n, sameSum(sum!), views]),
            );
            cells += now.rows.length;
          }
        }
      }
    }
    expect(cells, await storedOfYears()).toBeGreaterThan(1_000);
  });
});

/** The rows of a former statement, its numbers as numbers (the server may quote 64-bit ones). */
async function formerRows(query: string, params: Record<string, unknown>) {
  const body = await (
    await clickhouse.query({ query, query_params: params, format: 'JSON' })
  ).json<{
    data: Record<string, unknown>[];
    totals?: Record<string, unknown>;
  }>();
  const numbers = (row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => [
        key,
        key === 'neighbourhood' || value === null ? value : Number(value),
      ]),
    );
  return { rows: body.data.map(numbers), totals: body.totals && numbers(body.totals) };
}

type PricingScope = Parameters<typeof pricingFigures>[1];

/** What a row of the new statements carries for its part: the former statement's columns. */
function formerColumns(row: PricingRow): Record<string, unknown> {
  const { part, neighbourhood, listings, views } = row;
  const prices = { median_price: row.median_price, min_price: row.min_price, max_price: row.max_price };
  switch (part) {
    case 'current':
    case 'total':
      return { part, neighbourhood, listings, ...prices, avg_price: row.avg_price };
    case 'previous':
      return { part, neighbourhood, listings, median_price: row.median_price };
    default:
      return { part, neighbourhood, listings, views };
  }
}

/** Each pricing scope of this file's data, with the four former statements' rows for it. */
async function formerAnswers() {
  const answers: { params: PricingScope; expected: Record<string, unknown>[] }[] = [];
  for (const isTest of [false, true]) {
    for (const city of ['mbeya', 'arusha', 'dodoma'] as const) {
      for (const type of [...types, 'land'] as const) {
        for (const [i, quarter] of quarters.entries()) {
          const params = {
            isTest: isTest ? 1 : 0,
            city,
            type,
            quarterStart: `${year}-${quarter}`,
            previousStart: i === 0 ? `${year - 1}-10-01` : `${year}-${quarters[i - 1]}`,
          };
          const [prices, previous, views, market] = await Promise.all([
            formerRows(formerPrices, params),
            formerRows(formerMedians, params),
            formerRows(formerViews, params),
            formerRows(formerMarket, params),
          ]);
          const { totals } = prices;
          const parts: Record<string, unknown>[] = [
            ...prices.rows.map((row) => ({ part: 'current', ...row })),
            // WITH TOTALS answers an empty period with a row of zeros; the new statements without.
            ...(totals && totals.listings !== 0 ? [{ part: 'total', ...totals, neighbourhood: '' }] : []),
            ...previous.rows.map((row) => ({ part: 'previous', ...row })),
            ...views.rows.map((row) => ({ part: 'views', ...row })),
            ...(market.rows[0]!.listings !== 0 || market.rows[0]!.views !== 0
              ? [{ part: 'market', ...market.rows[0] }]
              : []),
          ];
          const expected = parts.map((row) =>
            typeof row.avg_price === 'number' ? { ...row, avg_price: sameSum(row.avg_price) } : row,
          );
          answers.push({ params: { ...params, isTest }, expected });
        }
      }
    }
  }
  return answers;
}

/** An answer's figures as the former statements' rows, in a comparable order. */
function comparable(figures: PricingFigures) {
  const order = (a: Record<string, unknown>, b: Record<string, unknown>) =>
    `${a.part}/${a.neighbourhood}`.localeCompare(`${b.part}/${b.neighbourhood}`);
  const { market } = figures;
  return [
    ...figures.prices.map(formerColumns),
    ...[...figures.views].map(([neighbourhood, views]) => ({ part: 'views', neighbourhood, views })),
    // The former market statement's row of zeros is left out of the expected rows too.
    ...(market.listings > 0 || market.views > 0 ? [{ part: 'market', ...market }] : []),
  ].sort(order);
}
const byPart = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  `${a.part}/${a.neighbourhood}`.localeCompare(`${b.part}/${b.neighbourhood}`);

describe('the pricing reads against the four former statements', () => {
  // Every scope taken for lagging: the answers come from the prices statement.
  const fromPrices = { clickhouse, lag: { has: () => true, add: () => undefined } };

  it(`happy: pricing: prices computed at request time give the same prices, totals, medians before, views and market (seed ${seed})`, async () => {
    let rows = 0;
    for (const { params, expected } of await formerAnswers()) {
      const now = await pricingFigures(fromPrices, params);
      expect(now.source).toBe('prices');
      expect(comparable(now), JSON.stringify(params)).toEqual(expected.sort(byPart));
      rows += now.prices.length;
    }
    expect(rows, await storedOfYears()).toBeGreaterThan(300);
  });

  it(`happy: pricing: prepared summaries give the same answers, and only while they count what is stored (seed ${seed})`, async () => {
    const answers = await formerAnswers();
    // This file's groups, whatever the stream worker's job prepared of them meanwhile.
    const groups = answers.flatMap(({ params }) =>
      [params.quarterStart, params.previousStart].map((quarter) => ({
        is_test: params.isTest ? (1 as const) : (0 as const),
        city: params.city,
        property_type: params.type,
        quarter,
      })),
    );
    await preparePriceSummaries(clickhouse, groups);
    let fromSummaries = 0;
    for (const { params, expected } of answers) {
      const figures = await pricingFigures({ clickhouse, lag: createPricingLag() }, params);
      expect(comparable(figures), JSON.stringify(params)).toEqual(expected.sort(byPart));
      if (figures.source === 'summaries') fromSummaries++;
    }
    // Every scope of this file's data: nothing is written to its years after beforeAll.
    expect(fromSummaries).toBe(answers.length);
  });

  it('edge: pricing: a group written after its summary is read from its prices at once', async () => {
    const scope = pricingScope({ city: 'mbeya', type: 'house', period: { year, quarter: 2 } }, false);
    const group = { is_test: 0, city: 'mbeya', property_type: 'house' } as const;
    await preparePriceSummaries(clickhouse, [
      { ...group, quarter: scope.quarterStart },
      { ...group, quarter: scope.previousStart },
    ]);
    const deps = { clickhouse, lag: createPricingLag() };
    const before = await pricingFigures(deps, scope);
    expect(before.source).toBe('summaries');
    const total = (figures: PricingFigures) => figures.prices.find((r) => r.part === 'total')!;
    // A rent above any other of the group: the new maximum.
    const rent = 2e12 + Math.floor(random() * 1e6);
    await insertListings([
      {
        is_test: 0,
        listed_at: `${year}-05-15 12:00:00`,
        property_type: 'house',
        price_tzs: rent,
        city: 'mbeya',
        neighbourhood: 'Forest',
      },
    ]);
    const after = await pricingFigures(deps, scope);
    expect(after.source).toBe('prices');
    expect(total(after).listings).toBe(total(before).listings + 1);
    expect(total(after).max_price).toBe(rent);
  });
});
