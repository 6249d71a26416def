// The heatmap's read answers exactly what its former definition answered, on random listings of a
// year of this file's own: the parent-cell filter against the test of every h3_index range (the
// former statement is kept here verbatim).
import { latLngToCell } from 'h3-js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bounds } from '../../analytics-api/geo/bounds.ts';
import { parentsForBounds, rangesForBounds } from '../../analytics-api/geo/h3-ranges.ts';
import { cellStats, coveringSpans, INDEX_SPANS } from '../../analytics-api/queries/heatmap.ts';
import { testClickHouse } from '../support/api.ts';
import { claimYear, insertListings, type ListingRow } from './analytics-fixtures.ts';

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

// A seeded generator, so a failure can be replayed (the seed is printed with it).
const seed = Date.now() % 1_000_000;
let state = seed;
const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
/** Sums of doubles added in another order agree to about 1e-15 of their size. */
const sameSum = (value: number) => expect.closeTo(value, 9 - Math.ceil(Math.log10(Math.abs(value) + 1)));

const types = ['apartment', 'house', 'studio'] as const;
const neighbourhoods = ['', 'Iyunga', 'Forest', 'Sisimba', 'Mwanjelwa'];
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

describe('the heatmap read against its former definition', () => {
  let year: number;
  const clickhouse = testClickHouse();

  beforeAll(async () => {
    year = await claimYear();
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
          listed_at: `${year}-${pick(quarters).slice(0, 2)}-${String(1 + Math.floor(random() * 28)).padStart(2, '0')} 12:00:00`,
          property_type: pick(types),
          price_tzs: price(),
          city: 'mbeya',
          neighbourhood: pick(neighbourhoods),
          h3_index: BigInt(`0x${latLngToCell(lat, lng, 8)}`).toString(),
        });
      }
      await insertListings(rows);
    }
  });

  it(`heatmap: the same cells of boxes of every size (happy; seed ${seed})`, async () => {
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
    expect(cells).toBeGreaterThan(1_000);
  });
});
