// GET /analytics/pricing against data this file inserts into its own year (analytics-fixtures.ts):
// every expected figure is recomputed here by hand from the inserted rows and compared exactly.
import { beforeAll, describe, expect, it } from 'vitest';
import { api, createTestKey, type TestKey } from '../support/api.ts';
import {
  claimYear,
  insertListings,
  insertViews,
  medianOf,
  type ListingRow,
} from '../support/analytics-fixtures.ts';

const round2 = (v: number) => Math.round(v * 100) / 100;
const round3 = (v: number) => Math.round(v * 1000) / 1000;

// Prices per neighbourhood: the period (Q2) and the quarter before (Q1).
const current: Record<string, number[]> = {
  Njiro: [500_000, 520_000, 610_000, 450_000, 700_000, 480_000, 530_000, 900_000, 505_000, 515_000],
  // Median 1,050,000 vs previous 1,000,000: exactly +5 %, which is not above the threshold → stable.
  Sakina: [
    1_050_000, 990_000, 1_200_000, 1_050_000, 800_000, 1_100_000, 1_300_000, 700_000, 1_050_000, 1_000_000,
    1_500_000,
  ],
  Kijenge: [
    300_000, 310_000, 320_000, 330_000, 340_000, 350_000, 360_000, 370_000, 380_000, 390_000, 400_000,
    410_000,
  ],
  Themi: [600_000, 650_000, 700_001],
  Olasiti: [200_000, 210_000, 220_000, 230_000, 240_000, 250_000, 260_000, 270_000, 280_000, 290_000],
  '': [123_457, 2_000_000],
};
const previous: Record<string, number[]> = {
  Njiro: [400_000, 410_000, 420_000, 430_000, 440_000, 450_000, 460_000, 470_000, 480_000, 490_000],
  Sakina: [
    1_000_000, 900_000, 1_100_000, 1_000_000, 950_000, 1_000_000, 1_200_000, 1_000_000, 800_000, 1_050_000,
  ],
  Kijenge: [500_000, 510_000, 520_000, 530_000, 540_000, 550_000, 560_000, 570_000, 580_000, 590_000],
  Themi: Array.from({ length: 20 }, (_, i) => 600_000 + i * 1_000),
  Olasiti: [200_000, 210_000, 220_000, 230_000, 240_000, 250_000, 260_000, 270_000, 280_000],
};
// Views of the period per neighbourhood (test mode, houses, Arusha).
const views: Record<string, number> = { Njiro: 40, Sakina: 11, Kijenge: 6, Themi: 30, Olasiti: 0, '': 5 };
const MWANZA_LISTINGS = 5;
const MWANZA_VIEWS = 50;

function expectedTrend(now: number[], before: number[] = []): string {
  if (now.length < 10 || before.length < 10) return 'insufficient_data';
  const change = (medianOf(now) - medianOf(before)) / medianOf(before);
  return change > 0.05 ? 'rising' : change < -0.05 ? 'falling' : 'stable';
}

describe('GET /analytics/pricing', () => {
  let year: number;
  let testKey: TestKey;
  let liveKey: TestKey;

  beforeAll(async () => {
    year = await claimYear();
    testKey = await createTestKey({ mode: 'test' });
    liveKey = await createTestKey({ mode: 'live' });
    // Q2 spans 04-01 00:00:00 … 06-30 23:59:59 UTC; both edges are used.
    const inQ2 = (i: number) =>
      [`${year}-04-01 00:00:00`, `${year}-05-15 12:00:00`, `${year}-06-30 23:59:59`][i % 3]!;
    const inQ1 = (i: number) => [`${year}-01-01 00:00:00`, `${year}-03-31 23:59:59`][i % 2]!;
    const house = { property_type: 'house', city: 'arusha' } as const;
    /** Test-mode houses in Arusha at the given prices per neighbourhood, the i-th listed at `at(i)`. */
    const housesListed = (prices: Record<string, number[]>, at: (i: number) => string): ListingRow[] =>
      Object.entries(prices).flatMap(([neighbourhood, byListing]) =>
        byListing.map((price_tzs, i) => ({
          ...house,
          is_test: 1 as const,
          neighbourhood,
          price_tzs,
          listed_at: at(i),
        })),
      );
    const rows: ListingRow[] = [
      ...housesListed(current, inQ2),
      ...housesListed(previous, inQ1),
      // Noise that must not count: next quarter, other type, other city (market only), live mode.
      {
        ...house,
        is_test: 1,
        neighbourhood: 'Njiro',
        price_tzs: 9_999_999,
        listed_at: `${year}-07-01 00:00:00`,
      },
      {
        ...house,
        property_type: 'apartment',
        is_test: 1,
        neighbourhood: 'Njiro',
        price_tzs: 1,
        listed_at: inQ2(1),
      },
      ...Array.from({ length: MWANZA_LISTINGS }, (_, i) => ({
        property_type: 'house',
        city: 'mwanza',
        is_test: 1 as const,
        neighbourhood: 'Capri Point',
        price_tzs: 100 + i,
        listed_at: inQ2(i),
      })),
      ...[100_000, 200_000, 300_000].map((price_tzs, i) => ({
        ...house,
        is_test: 0 as const,
        neighbourhood: 'Njiro',
        price_tzs,
        listed_at: inQ2(i),
      })),
    ];
    await insertListings(rows);
    await insertViews([
      ...Object.entries(views).map(([neighbourhood, count]) => ({
        ...house,
        is_test: 1 as const,
        neighbourhood,
        count,
        viewed_at: `${year}-05-01 08:00:00`,
      })),
      { ...house, is_test: 1, neighbourhood: 'Njiro', count: 100, viewed_at: `${year}-03-31 23:59:59` },
      {
        ...house,
        property_type: 'apartment',
        is_test: 1,
        neighbourhood: 'Njiro',
        count: 70,
        viewed_at: `${year}-05-01 08:00:00`,
      },
      {
        property_type: 'house',
        city: 'mwanza',
        neighbourhood: 'Capri Point',
        is_test: 1,
        count: MWANZA_VIEWS,
        viewed_at: `${year}-06-01 00:00:00`,
      },
      {
        property_type: 'unknown',
        city: '',
        neighbourhood: '',
        is_test: 1,
        count: 9,
        viewed_at: `${year}-05-01 08:00:00`,
      },
    ]);
  });

  it('happy: computes summary, neighbourhood medians, demand scores and trends exactly', async () => {
    const res = await api('GET', `/api/v1/analytics/pricing?city=arusha&type=house&period=${year}-Q2`, {
      key: testKey.key,
    });
    expect(res.status).toBe(200);

    const all = Object.values(current).flat();
    const marketListings = all.length + MWANZA_LISTINGS;
    const marketViews = Object.values(views).reduce((a, b) => a + b, 0) + MWANZA_VIEWS;
    const marketRate = marketViews / marketListings;
    const expectedNeighbourhoods = Object.entries(current)
      .filter(([name]) => name !== '')
      .map(([name, prices]) => ({
        name,
        median_price: medianOf(prices),
        listing_count: prices.length,
        demand_score: round3(views[name]! / prices.length / marketRate),
        trend: expectedTrend(prices, previous[name]),
      }))
      .sort((a, b) => b.listing_count - a.listing_count || a.name.localeCompare(b.name));

    expect(res.body).toEqual({
      city: 'Arusha',
      property_type: 'house',
      period: `${year}-Q2`,
      summary: {
        median_price_tzs: medianOf(all),
        avg_price_tzs: round2(all.reduce((a, b) => a + b, 0) / all.length),
        min_price_tzs: Math.min(...all),
        max_price_tzs: Math.max(...all),
        total_listings: all.length,
      },
      by_neighborhood: expectedNeighbourhoods,
    });
    // The fixture is built to show every trend value.
    expect(new Set(expectedNeighbourhoods.map((n) => n.trend))).toEqual(
      new Set(['rising', 'stable', 'falling', 'insufficient_data']),
    );
  });

  it('security: answers a live key from live listings only (test/live isolation)', async () => {
    const res = await api('GET', `/api/v1/analytics/pricing?city=arusha&type=house&period=${year}-Q2`, {
      key: liveKey.key,
    });
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({
      median_price_tzs: 200_000,
      avg_price_tzs: 200_000,
      min_price_tzs: 100_000,
      max_price_tzs: 300_000,
      total_listings: 3,
    });
    expect(res.body.by_neighborhood).toEqual([
      { name: 'Njiro', median_price: 200_000, listing_count: 3, demand_score: 0, trend: 'insufficient_data' },
    ]);
  });

  it('happy: answers an empty period with zero listings and null prices', async () => {
    const res = await api('GET', `/api/v1/analytics/pricing?city=arusha&type=house&period=${year}-Q4`, {
      key: testKey.key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      city: 'Arusha',
      property_type: 'house',
      period: `${year}-Q4`,
      summary: {
        median_price_tzs: null,
        avg_price_tzs: null,
        min_price_tzs: null,
        max_price_tzs: null,
        total_listings: 0,
      },
      by_neighborhood: [],
    });
  });

  it('happy: defaults the period to the current quarter', async () => {
    const res = await api('GET', '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment', {
      key: testKey.key,
    });
    expect(res.status).toBe(200);
    const now = new Date();
    expect(res.body.period).toBe(`${now.getUTCFullYear()}-Q${Math.floor(now.getUTCMonth() / 3) + 1}`);
    expect(res.body.city).toBe('Dar es Salaam');
  });
});

describe('GET /analytics/pricing with bad input', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createTestKey({ mode: 'test' })).key;
  });

  it('error: rejects an unknown city with the allowed slugs', async () => {
    const res = await api('GET', '/api/v1/analytics/pricing?city=Dar%20es%20Salaam&type=house', { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    const detail = res.body.error.details.find((d: { parameter: string }) => d.parameter === 'city');
    expect(detail.allowed).toHaveLength(10);
    expect(detail.allowed).toContain('dar_es_salaam');
  });

  it('error: rejects an unknown or missing type with the allowed types', async () => {
    for (const query of ['city=arusha&type=castle', 'city=arusha']) {
      const res = await api('GET', `/api/v1/analytics/pricing?${query}`, { key });
      expect(res.status).toBe(400);
      const detail = res.body.error.details.find((d: { parameter: string }) => d.parameter === 'type');
      expect(detail.allowed).toEqual(['apartment', 'house', 'studio', 'room', 'commercial', 'land']);
    }
  });

  it('security: rejects malformed periods and SQL-looking input without reaching the database', async () => {
    for (const query of [
      'city=arusha&type=house&period=2024Q1',
      'city=arusha&type=house&period=2024-Q5',
      'city=arusha&type=house&period=1900-Q1',
      "city=arusha'%20OR%201=1--&type=house",
      'city=arusha&city=mwanza&type=house',
    ]) {
      const res = await api('GET', `/api/v1/analytics/pricing?${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('invalid_parameter');
    }
  });

  it('happy: is described in the OpenAPI document with its parameters', async () => {
    const doc = await api('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    const op = doc.body.paths['/analytics/pricing'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(['city', 'type', 'period']);
    expect(doc.body.paths['/analytics/heatmap'].get.parameters[0].name).toBe('bounds');
  });

  it('security: requires an API key', async () => {
    const res = await api('GET', '/api/v1/analytics/pricing?city=arusha&type=house');
    expect(res.status).toBe(401);
  });
});
