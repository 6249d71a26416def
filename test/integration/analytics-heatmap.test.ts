// GET /analytics/heatmap against cells this file fills in its own year (analytics-fixtures.ts):
// cell figures, market-normalised demand scores and the bounds rules, recomputed here by hand.
import { cellToLatLng, latLngToCell } from 'h3-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestKey } from '../support/api.ts';
import { claimYear, insertListings, insertViews, type ListingRow } from '../support/analytics-fixtures.ts';

const round2 = (v: number) => Math.round(v * 100) / 100;
const round3 = (v: number) => Math.round(v * 1000) / 1000;
const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const u64 = (h3: string) => BigInt(`0x${h3}`).toString();

// Around Dodoma. The box is west,south,east,north (GeoJSON order).
const BOX = { west: 35.7, south: -6.2, east: 35.8, north: -6.12 };
const bounds = `${BOX.west},${BOX.south},${BOX.east},${BOX.north}`;
const inside = [
  latLngToCell(-6.163, 35.7516, 8),
  latLngToCell(-6.18, 35.72, 8),
  latLngToCell(-6.13, 35.79, 8),
];
// Centre just east of the box: within the ranges the query reads, so the centre filter must drop it.
const outside = latLngToCell(-6.16, 35.806, 8);

interface CellFixture {
  h3: string;
  prices: { type: string; price: number }[];
  views: { type: string; count: number }[];
}
const cells: CellFixture[] = [
  {
    h3: inside[0]!,
    prices: [
      { type: 'apartment', price: 400_000 },
      { type: 'apartment', price: 500_001 },
      { type: 'house', price: 900_000 },
    ],
    views: [
      { type: 'apartment', count: 12 },
      { type: 'house', count: 3 },
    ],
  },
  { h3: inside[1]!, prices: [{ type: 'studio', price: 150_000 }], views: [] },
  {
    h3: inside[2]!,
    prices: [
      { type: 'apartment', price: 300_000 },
      { type: 'apartment', price: 310_000 },
    ],
    views: [{ type: 'apartment', count: 1 }],
  },
  { h3: outside, prices: [{ type: 'apartment', price: 700_000 }], views: [{ type: 'apartment', count: 50 }] },
];

describe('GET /analytics/heatmap', () => {
  let year: number;
  let testKey: string;
  let liveKey: string;

  beforeAll(async () => {
    year = await claimYear();
    testKey = (await createTestKey({ mode: 'test' })).key;
    liveKey = (await createTestKey({ mode: 'live' })).key;
    const listedAt = `${year}-08-10 09:00:00`; // Q3
    const rows: ListingRow[] = cells.flatMap((cell) =>
      cell.prices.map(({ type, price }) => ({
        is_test: 1 as const,
        listed_at: listedAt,
        property_type: type,
        price_tzs: price,
        city: 'dodoma',
        neighbourhood: '',
        h3_index: u64(cell.h3),
      })),
    );
    rows.push(
      // Market only: a listing without a cell elsewhere, and one of another quarter in a cell.
      {
        is_test: 1,
        listed_at: listedAt,
        property_type: 'apartment',
        price_tzs: 1,
        city: 'tanga',
        neighbourhood: '',
      },
      {
        is_test: 1,
        listed_at: `${year}-06-30 23:59:59`,
        property_type: 'apartment',
        price_tzs: 5,
        city: 'dodoma',
        neighbourhood: '',
        h3_index: u64(inside[1]!),
      },
      // Live mode: one apartment in the first cell.
      {
        is_test: 0,
        listed_at: listedAt,
        property_type: 'apartment',
        price_tzs: 250_000,
        city: 'dodoma',
        neighbourhood: '',
        h3_index: u64(inside[0]!),
      },
    );
    await insertListings(rows);
    await insertViews([
      ...cells.flatMap((cell) =>
        cell.views.map(({ type, count }) => ({
          is_test: 1 as const,
          viewed_at: `${year}-09-01 10:00:00`,
          property_type: type,
          city: 'dodoma',
          neighbourhood: '',
          h3_index: u64(cell.h3),
          count,
        })),
      ),
      {
        is_test: 1,
        viewed_at: `${year}-09-01 10:00:00`,
        property_type: 'apartment',
        city: 'tanga',
        neighbourhood: '',
        count: 7,
      },
    ]);
  });

  function expected(type?: string) {
    const typed = <T extends { type: string }>(items: T[]) => items.filter((i) => !type || i.type === type);
    const marketListings =
      cells.reduce((n, c) => n + typed(c.prices).length, 0) + (!type || type === 'apartment' ? 1 : 0);
    const marketViews =
      cells.reduce((n, c) => n + typed(c.views).reduce((s, v) => s + v.count, 0), 0) +
      (!type || type === 'apartment' ? 7 : 0);
    return cells
      .filter((c) => c.h3 !== outside && typed(c.prices).length > 0)
      .map((c) => {
        const prices = typed(c.prices).map((p) => p.price);
        const views = typed(c.views).reduce((s, v) => s + v.count, 0);
        const [lat, lng] = cellToLatLng(c.h3);
        return {
          h3_index: c.h3,
          lat: round6(lat),
          lng: round6(lng),
          demand_score: round3(views / prices.length / (marketViews / marketListings)),
          avg_price: round2(prices.reduce((a, b) => a + b, 0) / prices.length),
          listing_count: prices.length,
          views_per_listing: round3(views / prices.length),
        };
      })
      .sort((a, b) => (a.h3_index < b.h3_index ? -1 : 1));
  }

  it('happy: returns one cell per resolution-8 cell with listings inside the bounds', async () => {
    const res = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}&period=${year}-Q3`, {
      key: testKey,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ grid_size: '500m', cells: expected() });
    expect(res.body.cells).toHaveLength(3);
  });

  it('happy: filters by property type, with the market of that type', async () => {
    const res = await api(
      'GET',
      `/api/v1/analytics/heatmap?bounds=${bounds}&period=${year}-Q3&type=apartment`,
      {
        key: testKey,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ grid_size: '500m', cells: expected('apartment') });
  });

  it('security: answers a live key from live listings only (test/live isolation)', async () => {
    const res = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}&period=${year}-Q3`, {
      key: liveKey,
    });
    expect(res.status).toBe(200);
    const [lat, lng] = cellToLatLng(inside[0]!);
    expect(res.body.cells).toEqual([
      {
        h3_index: inside[0],
        lat: round6(lat),
        lng: round6(lng),
        demand_score: 0,
        avg_price: 250_000,
        listing_count: 1,
        views_per_listing: 0,
      },
    ]);
  });

  it('error: rejects malformed, out-of-range and inverted bounds', async () => {
    for (const value of [
      '',
      'a,b,c,d',
      '35.7,-6.2,35.8',
      '35.7,-6.2,35.8,-6.1,1',
      '35.7,-6.2,35.8,NaN',
      '35.7,-6.2,Infinity,-6.1',
      '-181,-6.2,35.8,-6.1',
      '35.7,-91,35.8,-6.1',
      '35.8,-6.2,35.7,-6.1',
      '35.7,-6.1,35.8,-6.2',
      '35.7,-6.2,35.7,-6.1',
    ]) {
      const res = await api('GET', `/api/v1/analytics/heatmap?bounds=${encodeURIComponent(value)}`, {
        key: testKey,
      });
      expect(res.status, value).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
    }
    const missing = await api('GET', '/api/v1/analytics/heatmap', { key: testKey });
    expect(missing.status).toBe(400);
  });

  it('error: refuses a box larger than the documented maximum with a 400', async () => {
    const res = await api('GET', '/api/v1/analytics/heatmap?bounds=29,-12,41,-1', { key: testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toMatchObject({ parameter: 'bounds', max_area_km2: 10_000 });
    expect(res.body.error.details[0].area_km2).toBeGreaterThan(10_000);
  });

  it('happy: answers a thin, long box under the area cap, never with a 500', async () => {
    const res = await api('GET', '/api/v1/analytics/heatmap?bounds=29.3,-6.8,40.5,-6.7999', { key: testKey });
    expect(res.status).toBe(200);
    expect(res.body.grid_size).toBe('500m');
  });

  it('error: refuses a box whose covering would be far larger than the box with a clear 400', async () => {
    const res = await api('GET', '/api/v1/analytics/heatmap?bounds=-179,-0.001,179,0.001', { key: testKey });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.message).toMatch(/long and thin/);
    expect(res.body.error.details[0]).toMatchObject({ parameter: 'bounds' });
  });

  it('error: rejects an unknown type or period', async () => {
    for (const query of ['type=castle', 'period=2024-Q0', 'period=last']) {
      const res = await api('GET', `/api/v1/analytics/heatmap?bounds=${bounds}&${query}`, { key: testKey });
      expect(res.status, query).toBe(400);
    }
  });
});
