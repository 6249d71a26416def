// GET /analytics/estimate and GET /listings/{id}/estimate against hand-made neighbourhoods
// (estimate-fixtures.ts: empty rural spots of their own): the widening, the exclusion of the subject
// and of its fingerprint, the 422, currencies and test/live isolation, through the running API.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ListingInput } from '../../common/domain/listing.ts';
import { listingSchema } from '../../common/domain/listing.ts';
import { listingFingerprint } from '../../ingest/listings/fingerprint.ts';
import { api, createTestKey, testClickHouse, type TestKey } from '../support/api.ts';
import {
  emptySpot,
  insertEstimateListings,
  offset,
  type EstimateListing,
  type Point,
} from '../support/estimate-fixtures.ts';

const estimate = (key: string, at: Point, query: Record<string, string | number> = {}) =>
  api(
    'GET',
    `/api/v1/analytics/estimate?${new URLSearchParams({
      lat: String(at.latitude),
      lng: String(at.longitude),
      type: 'apartment',
      bedrooms: '2',
      ...Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    })}`,
    { key },
  );

/** `n` listings `km` from `at`, spread around it, `daysOld` days old. */
const ring = (at: Point, n: number, km: number, daysOld: number, extra: Partial<EstimateListing> = {}) =>
  Array.from({ length: n }, (_, i): EstimateListing => ({
    at: offset(at, km, (360 * i) / n + 7),
    daysOld,
    priceTzs: 1_000_000,
    ...extra,
  }));

describe('rent estimates', () => {
  let live: TestKey;
  let test: TestKey;

  beforeAll(async () => {
    live = await createTestKey({ mode: 'live' });
    test = await createTestKey({ mode: 'test', accountId: live.account_id });
  });

  it('happy: widens 1 → 2 → 5 → 10 km, then to 365 days, and says what it used', async () => {
    const cases: { comps: (at: Point) => EstimateListing[]; radius: number; age: number; used: number }[] = [
      { comps: (at) => ring(at, 17, 0.6, 10), radius: 1, age: 90, used: 15 },
      { comps: (at) => [...ring(at, 2, 0.5, 10), ...ring(at, 3, 1.5, 30)], radius: 2, age: 90, used: 5 },
      { comps: (at) => [...ring(at, 2, 0.5, 10), ...ring(at, 3, 4, 60)], radius: 5, age: 90, used: 5 },
      { comps: (at) => [...ring(at, 1, 0.5, 10), ...ring(at, 4, 8, 85)], radius: 10, age: 90, used: 5 },
      // Four recent ones nearby, then a year: the fifth is 200 days old, 0.5 km away.
      { comps: (at) => [...ring(at, 4, 0.5, 10), ...ring(at, 1, 0.7, 200)], radius: 1, age: 365, used: 5 },
    ];
    for (const c of cases) {
      const at = await emptySpot();
      // Never comparable: other type, other bedrooms, beyond 10 km, older than a year.
      const noise: EstimateListing[] = [
        ...ring(at, 3, 0.2, 5, { type: 'house', priceTzs: 9_000_000 }),
        ...ring(at, 3, 0.2, 5, { bedrooms: 4, priceTzs: 9_000_000 }),
        ...ring(at, 3, 10.5, 5, { priceTzs: 9_000_000 }),
        ...ring(at, 3, 0.2, 380, { priceTzs: 9_000_000 }),
      ];
      await insertEstimateListings([...c.comps(at), ...noise]);
      const response = await estimate(live.key, at);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toMatchObject({
        radius_km: c.radius,
        max_age_days: c.age,
        estimate: { rent: 1_000_000, currency: 'TZS', kind: 'asking_rent' },
      });
      const comps = response.body.comparables as { distance_km: number; days_old: number; price: number }[];
      expect(comps).toHaveLength(c.used);
      expect(comps.map((x) => x.distance_km)).toEqual(
        [...comps.map((x) => x.distance_km)].sort((a, b) => a - b),
      );
      expect(
        comps.every((x) => x.distance_km <= c.radius && x.days_old <= c.age && x.price === 1_000_000),
      ).toBe(true);
      expect(response.headers.get('x-cache')).toMatch(/miss|off/);
    }
  });

  it('happy: leaves the listing itself and every listing with its fingerprint out of its own estimate', async () => {
    const at = await emptySpot();
    const other = await createTestKey({ mode: 'live' });
    const title = `Estimate subject ${randomUUID()}`;
    const subject: EstimateListing = {
      at,
      daysOld: 3,
      priceTzs: 5_000_000,
      title,
      accountId: live.account_id,
    };
    // The same unit pushed by another account: same fingerprint, another id.
    const twin: EstimateListing = { ...subject, accountId: other.account_id, daysOld: 20 };
    const [subjectId, twinId, ...compIds] = await insertEstimateListings([
      subject,
      twin,
      ...ring(at, 6, 0.3, 15, { priceTzs: 800_000, accountId: live.account_id }),
    ]);

    const own = await api('GET', `/api/v1/listings/${subjectId}/estimate`, { key: live.key });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    const ids = (own.body.comparables as { listing_id: string }[]).map((c) => c.listing_id).sort();
    expect(ids).toEqual([...compIds].sort());
    expect(own.body.estimate.rent).toBe(800_000);
    expect(own.body.listing).toEqual({
      listing_id: subjectId,
      asking_rent: 5_000_000,
      position: 'over',
      difference_pct: 525,
    });

    // The same point without a subject: the listing and its twin are comparables (the twin is
    // another account's: no id, only its distance band).
    const point = await estimate(live.key, at);
    const pointComps = point.body.comparables as { listing_id: string | null; distance_km: number }[];
    const pointIds = pointComps.map((c) => c.listing_id);
    expect(pointComps.find((c) => c.listing_id === subjectId)?.distance_km).toBe(0);
    expect(pointComps.filter((c) => c.listing_id === null)).toEqual([
      expect.objectContaining({ distance_km: 1, distance_band: '0-1 km', price: 5_000_000 }),
    ]);
    expect(pointIds).not.toContain(twinId);

    // Only the owner, only in its mode.
    expect((await api('GET', `/api/v1/listings/${subjectId}/estimate`, { key: other.key })).status).toBe(404);
    expect((await api('GET', `/api/v1/listings/${subjectId}/estimate`, { key: test.key })).status).toBe(404);
    expect((await api('GET', `/api/v1/listings/not-a-uuid/estimate`, { key: live.key })).status).toBe(404);
  });

  it("security: never locates another account's listing: no id, distance as a band, off-market ones only counted", async () => {
    const at = await emptySpot();
    const other = await createTestKey({ mode: 'live' });
    const theirs = ring(at, 6, 0.7, 10, { priceTzs: 1_000_000, accountId: other.account_id });
    const mine = ring(at, 2, 0.95, 10, { priceTzs: 1_000_000, accountId: live.account_id });
    const [offMarketId, ...rest] = await insertEstimateListings([...theirs, ...mine]);
    const ownIds = rest.slice(-2);
    // One of theirs is withdrawn: a newer state row, as the status stream writes it.
    await testClickHouse().command({
      query: `INSERT INTO listing_states SELECT * REPLACE ('withdrawn' AS status, version + 1 AS version)
              FROM listing_states FINAL WHERE listing_id = {id:UUID}`,
      query_params: { id: offMarketId },
    });
    const response = await estimate(live.key, at);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const comps = response.body.comparables as {
      listing_id: string | null;
      distance_km: number;
      distance_band: string;
    }[];
    expect(response.body.off_market_comparables).toBe(1);
    expect(comps).toHaveLength(7);
    expect(
      comps
        .map((c) => c.listing_id)
        .filter((id) => id !== null)
        .sort(),
    ).toEqual([...ownIds].sort());
    expect(comps.map((c) => c.listing_id)).not.toContain(offMarketId);
    // Theirs (0.7 km) only as the band's upper bound; ours (0.95 km) as they are, listed first.
    expect(comps.map((c) => c.distance_km)).toEqual([0.95, 0.95, 1, 1, 1, 1, 1]);
    expect(comps.every((c) => c.distance_band === '0-1 km')).toBe(true);
    // The other account sees its own ids, not ours.
    const theirView = await estimate(other.key, at);
    const theirIds = (theirView.body.comparables as { listing_id: string | null }[]).map((c) => c.listing_id);
    expect(theirIds.filter((id) => id !== null)).toHaveLength(5);
    expect(theirIds).not.toContain(ownIds[0]);
  });

  it('happy: computes the same fingerprint in SQL as the ingest API does', async () => {
    const at = await emptySpot();
    const inputs: ListingInput[] = [
      {
        title: '  2BR — Masaki, Plot 12!  ',
        description: 'x',
        property_type: 'apartment',
        price: 1_500_000.5,
        bedrooms: 2,
        bathrooms: 1,
        latitude: at.latitude,
        longitude: at.longitude,
      },
      {
        title: 'House',
        description: 'x',
        property_type: 'house',
        price: 900,
        currency: 'USD',
        address: 'Plot 7, Njiro Rd.  (near ÉCOLE)',
        latitude: at.latitude,
        longitude: at.longitude,
      },
      {
        title: 'Room',
        description: 'x',
        property_type: 'room',
        price: 150_000,
        external_id: 'ACME-42/b',
        latitude: at.latitude,
        longitude: at.longitude,
      },
    ];
    const ids = await insertEstimateListings(
      inputs.map((input) => {
        const l = listingSchema.parse(input);
        return {
          at,
          title: l.title,
          price: l.price,
          currency: l.currency,
          priceTzs: l.currency === 'USD' ? l.price * 2_500 : l.price,
          type: l.property_type,
          bedrooms: l.bedrooms ?? null,
          bathrooms: l.bathrooms ?? null,
          address: l.address,
          externalId: l.external_id,
        };
      }),
    );
    for (const [i, input] of inputs.entries()) {
      const result = await testClickHouse().query({
        query: `SELECT toString(fingerprint) AS stored, toString(cityHash64({fp:String})) AS expected
                FROM rent_comparables WHERE listing_id = {id:UUID}`,
        query_params: { id: ids[i], fp: listingFingerprint(listingSchema.parse(input)) },
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ stored: string; expected: string }>();
      expect(row?.stored, JSON.stringify(input)).toBe(row?.expected);
    }
  });

  it('error: answers 422 insufficient_comparables with what it searched', async () => {
    const at = await emptySpot();
    await insertEstimateListings([
      ...ring(at, 4, 0.5, 10),
      ...ring(at, 3, 0.5, 10, { bedrooms: 4 }), // not similar to 2 bedrooms
      ...ring(at, 3, 0.5, 10, { isTest: 1 }), // another mode
    ]);
    const response = await estimate(live.key, at);
    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({
      code: 'insufficient_comparables',
      retriable: false,
      request_id: expect.stringMatching(/^req_/),
      details: { min_comparables: 5, property_type: 'apartment', bedrooms: 2 },
    });
    expect(response.body.error.message).toMatch(/4 found within 10 km listed in the last 365 days/);
    expect(response.body.error.details.searched).toEqual(
      [1, 2, 5, 10, 1, 2, 5, 10].map((radius_km, i) => ({
        radius_km,
        max_age_days: i < 4 ? 90 : 365,
        comparables: 4,
      })),
    );
    // Without bedrooms the four-bedroom ones count too: 7 comparables.
    const wide = await api(
      'GET',
      `/api/v1/analytics/estimate?lat=${at.latitude}&lng=${at.longitude}&type=apartment`,
      { key: live.key },
    );
    expect(wide.status).toBe(200);
    expect(wide.body.comparables).toHaveLength(7);

    // A listing without a place has nothing to be compared with.
    const [unplaced] = await insertEstimateListings([
      { at, priceTzs: 1_000_000, unplaced: true, accountId: live.account_id },
    ]);
    const noPlace = await api('GET', `/api/v1/listings/${unplaced}/estimate`, { key: live.key });
    expect(noPlace.status).toBe(422);
    expect(noPlace.body.error.details).toEqual({ listing_id: unplaced, reason: 'no_location' });
  });

  it('happy: answers in USD at FX_USD_TZS, comparing listings at their stored TZS', async () => {
    const at = await emptySpot();
    await insertEstimateListings([
      ...ring(at, 3, 0.4, 10, { priceTzs: 1_000_000 }),
      // USD listings stored at the rate of their day (2,500): 400 USD = 1,000,000 TZS.
      ...ring(at, 2, 0.6, 10, { price: 400, currency: 'USD', priceTzs: 1_000_000 }),
      ...ring(at, 1, 0.8, 10, { priceTzs: 1_300_000 }),
    ]);
    const tzs = await estimate(live.key, at);
    const usd = await estimate(live.key, at, { currency: 'USD' });
    expect(tzs.status).toBe(200);
    expect(usd.status).toBe(200);
    expect(tzs.body.estimate).toMatchObject({ rent: 1_000_000, currency: 'TZS' });
    expect(usd.body).toMatchObject({ estimate: { rent: 400, currency: 'USD' }, usd_tzs: 2_500 });
    expect(Math.abs(usd.body.estimate.low - tzs.body.estimate.low / 2_500)).toBeLessThanOrEqual(1);
    expect(Math.abs(usd.body.estimate.high - tzs.body.estimate.high / 2_500)).toBeLessThanOrEqual(1);
    expect((usd.body.comparables as { price: number }[]).map((c) => c.price).sort()).toEqual([
      400, 400, 400, 400, 400, 520,
    ]);
    expect((await estimate(live.key, at, { currency: 'EUR' })).body.error).toMatchObject({
      code: 'invalid_parameter',
      details: [{ parameter: 'currency', allowed: ['TZS', 'USD'] }],
    });
  });

  it('happy: test keys see test listings only, live keys live ones', async () => {
    const at = await emptySpot();
    const own = { accountId: live.account_id };
    const liveIds = await insertEstimateListings(ring(at, 5, 0.5, 10, { priceTzs: 1_000_000, ...own }));
    const testIds = await insertEstimateListings(
      ring(at, 5, 0.5, 10, { priceTzs: 3_000_000, isTest: 1, ...own }),
    );
    const fromLive = await estimate(live.key, at);
    const fromTest = await estimate(test.key, at);
    expect(fromLive.body.estimate.rent).toBe(1_000_000);
    expect(fromTest.body.estimate.rent).toBe(3_000_000);
    const idsOf = (r: typeof fromLive) =>
      (r.body.comparables as { listing_id: string }[]).map((c) => c.listing_id).sort();
    expect(idsOf(fromLive)).toEqual([...liveIds].sort());
    expect(idsOf(fromTest)).toEqual([...testIds].sort());

    const testOnly = await emptySpot();
    await insertEstimateListings(ring(testOnly, 6, 0.5, 10, { isTest: 1 }));
    expect((await estimate(live.key, testOnly)).status).toBe(422);
    expect((await estimate(test.key, testOnly)).status).toBe(200);
  });

  it('error: refuses bad parameters, and keys without analytics', async () => {
    const at = { latitude: -8, longitude: 35 };
    const missing = await api('GET', '/api/v1/analytics/estimate?lng=35&type=apartment', { key: live.key });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details).toEqual([{ parameter: 'lat', message: 'lat is required' }]);
    const bads: Record<string, string>[] = [
      { lat: '91' },
      { lat: 'abc' },
      { type: 'castle' },
      { bedrooms: '-1' },
      { area_sqm: '0' },
    ];
    for (const bad of bads) {
      const response = await estimate(live.key, at, bad);
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.error.code).toBe('invalid_parameter');
    }
    const free = await createTestKey({ mode: 'live', tier: 'free' });
    expect((await estimate(free.key, at)).status).toBe(403);
    expect((await api('GET', '/api/v1/analytics/estimate?lat=-8&lng=35&type=apartment')).status).toBe(401);
  });
});
