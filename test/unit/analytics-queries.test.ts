// Named analytics queries (analytics-api/queries): static SQL whose every value is a query parameter,
// and the heatmap's covering spans that let the primary key prune to the requested H3 ranges.
import type { ClickHouseClient } from '@clickhouse/client';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineQuery, placeholderNames } from '../../common/warehouse/query.ts';
import { cellRow, cellStats, coveringSpans, INDEX_SPANS } from '../../analytics-api/queries/heatmap.ts';
import { marketTotals } from '../../analytics-api/queries/market.ts';
import { pricingPricesStatement, pricingSummaryStatement } from '../../analytics-api/queries/pricing.ts';

const quarter = { isTest: true, city: 'zanzibar', type: 'studio', quarterStart: '2024-04-01' } as const;
// Two resolution-5 cells (Zanzibar's and Dar es Salaam's), as the covering of a box names them.
const parents = [601_147_838_847_516_671n, 601_147_850_658_676_735n];
const covering = { parentResolution: 5, parents };

/** Each named query with validated params for it. */
const cases = [
  [pricingSummaryStatement, pricingSummaryStatement.queryParams({ ...quarter, previousStart: '2024-01-01' })],
  [pricingPricesStatement, pricingPricesStatement.queryParams({ ...quarter, previousStart: '2024-01-01' })],
  [marketTotals, marketTotals.queryParams({ isTest: false, quarterStart: '2024-04-01' })],
  [marketTotals, marketTotals.queryParams({ isTest: false, quarterStart: '2024-04-01', type: 'land' })],
  [
    cellStats,
    cellStats.queryParams({ isTest: true, quarterStart: '2024-04-01', type: 'house', ...covering }),
  ],
  [cellStats, cellStats.queryParams({ isTest: false, quarterStart: '2024-04-01', ...covering })],
] as const;

describe('named queries', () => {
  it('happy: give a value for every placeholder of their static SQL and nothing else', () => {
    for (const [query, params] of cases) {
      expect(Object.keys(params).sort(), query.name).toEqual([...placeholderNames(query.sql)].sort());
      expect(Object.values(params).includes(undefined), query.name).toBe(false);
    }
  });

  it('edge: keep values out of the SQL text', () => {
    for (const [query] of cases) {
      expect(query.sql, query.name).not.toMatch(/zanzibar|studio|2024|601147|'land'/);
    }
  });

  it('happy: send UInt64 parents and masks as bigints, an open type as NULL and the mode as 0/1', () => {
    const params = cellStats.queryParams({ isTest: true, quarterStart: '2024-04-01', ...covering });
    expect(params).toMatchObject({
      isTest: 1,
      type: null,
      parents,
      // Resolution 5 in bits 52–55, digits 6…15 marked unused (7).
      parent_keep: 0xff0f_ffff_c000_0000n,
      parent_fill: 0x0050_0000_3fff_ffffn,
    });
    expect(marketTotals.queryParams({ isTest: false, quarterStart: '2024-04-01' })).toEqual({
      isTest: 0,
      quarterStart: '2024-04-01',
      type: null,
    });
  });

  it('error: a heatmap row that is not [uint32, uint32, count, number, count] is refused', () => {
    expect(cellRow.parse([1, 4_294_967_295, 3, 1.5e6, 0])).toEqual([1, 4_294_967_295, 3, 1.5e6, 0]);
    for (const bad of [
      [1, 2, 3, 4],
      [1, 2, 3, 4, 5, 6],
      [-1, 2, 3, 4, 5],
      [1, 2 ** 32, 3, 4, 5],
      [1, 2, 3.5, 4, 5],
      [1, 2, '3', 4, 5],
      [1, 2, 3, Number.NaN, 5],
      [1, 2, 3, null, 5],
      [1, 2, 3, 4, -5],
      { 0: 1, 1: 2, 2: 3, 3: 4, 4: 5, length: 5 },
      null,
    ]) {
      expect(cellRow.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('edge: name exactly INDEX_SPANS covering spans in the heatmap SQL', () => {
    expect(cellStats.sql.match(/\{span_lo:Array\(UInt64\)\}\[\d\]/g)).toEqual(
      Array.from({ length: INDEX_SPANS }, (_, i) => `{span_lo:Array(UInt64)}[${i + 1}]`),
    );
    expect(cellStats.sql.match(/\{span_hi:Array\(UInt64\)\}\[\d\]/g)).toHaveLength(INDEX_SPANS);
  });

  it('happy: run the static SQL with query_params and parse the rows', async () => {
    const query = vi.fn(async (_: unknown) => ({
      json: async () => ({ data: [{ listings: '3', views: 4 }] }),
    }));
    const client = { query } as unknown as ClickHouseClient;
    const result = await marketTotals.run(client, { isTest: true, quarterStart: '2024-07-01', type: 'room' });
    expect(result.rows).toEqual([{ listings: 3, views: 4 }]);
    expect(query).toHaveBeenCalledTimes(1);
    expect(query.mock.calls[0]![0]).toMatchObject({
      query: `/* market.totals */ ${marketTotals.sql}`,
      query_params: { isTest: 1, quarterStart: '2024-07-01', type: 'room' },
    });
  });

  it('happy: ask for the heatmap cells, market totals and pricing uncompressed, and for other answers as the client does', async () => {
    const query = vi.fn(async (_: unknown) => ({ json: async () => ({ data: [] }) }));
    const client = { query } as unknown as ClickHouseClient;
    const pricing = { ...quarter, previousStart: '2024-01-01' };
    const other = defineQuery({
      name: 'test.other',
      params: z.object({ n: z.number() }),
      row: z.object({ n: z.number() }),
      sql: 'SELECT {n:UInt8} AS n',
    });
    await cellStats.run(client, { isTest: false, quarterStart: '2024-04-01', ...covering });
    await marketTotals.run(client, { isTest: false, quarterStart: '2024-04-01' });
    await pricingSummaryStatement.run(client, pricing);
    await pricingPricesStatement.run(client, pricing);
    await other.run(client, { n: 1 });
    const settings = query.mock.calls.map(
      (call) => (call[0] as { clickhouse_settings: object }).clickhouse_settings,
    );
    for (const uncompressed of settings.slice(0, 4)) {
      expect(uncompressed).toMatchObject({ enable_http_compression: 0 });
    }
    expect(settings[4]).not.toHaveProperty('enable_http_compression');
  });

  it('error: refuse to run when params and placeholders disagree, without calling ClickHouse', async () => {
    const broken = defineQuery({
      name: 'test.broken',
      params: z.object({ n: z.number() }),
      row: z.object({ n: z.number() }),
      sql: 'SELECT {n:UInt8} AS n, {m:UInt8} AS m',
      queryParams: (p) => ({ n: p.n }),
    });
    const query = vi.fn();
    await expect(broken.run({ query } as unknown as ClickHouseClient, { n: 1 })).rejects.toThrow(
      /do not match placeholders \[m, n\]/,
    );
    expect(query).not.toHaveBeenCalled();
  });
});

describe('heatmap covering spans', () => {
  const covers = (spans: { lo: bigint[]; hi: bigint[] }, r: { lo: bigint; hi: bigint }) =>
    spans.lo.some((lo, i) => lo <= r.lo && r.hi <= spans.hi[i]!);

  it('happy: are the ranges themselves when there are few, padded by repeating the last', () => {
    const few = [
      { lo: 300n, hi: 399n },
      { lo: 100n, hi: 199n },
    ];
    expect(coveringSpans(few, 4)).toEqual({ lo: [100n, 300n, 300n, 300n], hi: [199n, 399n, 399n, 399n] });
  });

  it('happy: join the ranges with the smallest gaps first and cover every range', () => {
    const many = [
      { lo: 0n, hi: 9n },
      { lo: 12n, hi: 19n }, // gap 2
      { lo: 1_000n, hi: 1_009n },
      { lo: 1_015n, hi: 1_019n }, // gap 5
      { lo: 5_000n, hi: 5_009n },
      { lo: 9_000n, hi: 9_009n },
    ];
    const spans = coveringSpans(many, 4);
    expect(spans).toEqual({ lo: [0n, 1_000n, 5_000n, 9_000n], hi: [19n, 1_019n, 5_009n, 9_009n] });
    for (const r of many) expect(covers(spans, r)).toBe(true);
  });

  it('edge: merge overlapping ranges and handle the largest UInt64', () => {
    const spans = coveringSpans(
      [
        { lo: 2n ** 64n - 10n, hi: 2n ** 64n - 1n },
        { lo: 2n ** 64n - 20n, hi: 2n ** 64n - 5n },
        { lo: 5n, hi: 6n },
      ],
      2,
    );
    expect(spans).toEqual({ lo: [5n, 2n ** 64n - 20n], hi: [6n, 2n ** 64n - 1n] });
  });

  it('happy: cover up to MAX_RANGES random ranges with INDEX_SPANS spans', () => {
    for (let round = 0; round < 50; round++) {
      const rs = Array.from({ length: 1 + Math.floor(Math.random() * 200) }, () => {
        const lo = BigInt(Math.floor(Math.random() * 1e12));
        return { lo, hi: lo + BigInt(Math.floor(Math.random() * 1e6)) };
      });
      const spans = coveringSpans(rs, INDEX_SPANS);
      expect(spans.lo).toHaveLength(INDEX_SPANS);
      for (const r of rs) expect(covers(spans, r)).toBe(true);
    }
  });
});
