// What another account can learn from GET /analytics/estimate: the attack that located a
// competitor's listings to 0.1 m from distances rounded to 0.5 km (a grid of probes, then bisection
// of where a comparable's distance flips along three rays, then the circle through the flips),
// repeated against the cell-centre search and distance bands; and the daily quota of distinct
// cells that bounds how many search centres an account may compare.
import { latLngToCell } from 'h3-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { estimateCellsKey } from '../../analytics-api/estimate-quota.ts';
import { distanceKm } from '../../common/estimate/method.ts';
import { api, createTestKey, env, testRedis, type TestKey } from '../support/api.ts';
import { emptySpot, insertEstimateListings, offset, type Point } from '../support/estimate-fixtures.ts';

interface Comparable {
  listing_id: string | null;
  price: number;
  distance_km: number;
  distance_band: string;
}

const query = (at: Point) =>
  `/api/v1/analytics/estimate?lat=${at.latitude}&lng=${at.longitude}&type=apartment&bedrooms=2`;

/** The circumcentre of three points, on a local flat projection (a few km: metres of error at most). */
function circumcentre(a: Point, b: Point, c: Point): Point {
  const kmPerDeg = (12_742 * Math.PI) / 360;
  const cos = Math.cos((a.latitude * Math.PI) / 180);
  const xy = (p: Point): [number, number] => [
    (p.longitude - a.longitude) * kmPerDeg * cos,
    (p.latitude - a.latitude) * kmPerDeg,
  ];
  const [[ax, ay], [bx, by], [cx, cy]] = [xy(a), xy(b), xy(c)];
  const d = 2 * (ax * (by - cy) + bx * (cy - ay) + cx * (ay - by));
  const sq = (x: number, y: number) => x * x + y * y;
  const ux = (sq(ax, ay) * (by - cy) + sq(bx, by) * (cy - ay) + sq(cx, cy) * (ay - by)) / d;
  const uy = (sq(ax, ay) * (cx - bx) + sq(bx, by) * (ax - cx) + sq(cx, cy) * (bx - ax)) / d;
  return { latitude: a.latitude + uy / kmPerDeg, longitude: a.longitude + ux / (kmPerDeg * cos) };
}

describe('rent estimate privacy', () => {
  let attacker: TestKey;

  beforeAll(async () => {
    // Its own rate limit, so the attack is not slowed by the limiter (nor its quota in the way).
    attacker = await createTestKey({ mode: 'live', tier: 'enterprise', rateLimit: 100_000 });
  });

  it("security: a grid of probes and bisection along rays locates none of another account's listings", async () => {
    const spot = await emptySpot();
    const victim = await createTestKey({ mode: 'live' });
    // Six listings of the victim, each told apart by its price (as the attack did, with area and age).
    const listings = [0.12, 0.2, 0.31, 0.38, 0.45, 0.55].map((km, i) => ({
      at: offset(spot, km, 37 + i * 61),
      price: 1_000_000 + i * 10_000,
    }));
    await insertEstimateListings(
      listings.map((l) => ({ at: l.at, daysOld: 5, priceTzs: l.price, accountId: victim.account_id })),
    );

    const answers = new Map<string, Comparable[]>();
    const comparablesAt = async (at: Point): Promise<Comparable[]> => {
      const response = await api('GET', query(at), { key: attacker.key });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      answers.set(`${at.latitude},${at.longitude}`, response.body.comparables);
      return response.body.comparables;
    };
    /** The distance the answer at `at` gives the listing of `price` (Infinity when not listed). */
    const distanceOf = async (at: Point, price: number): Promise<number> =>
      (await comparablesAt(at)).find((c) => c.price === price)?.distance_km ?? Infinity;

    // The grid: 5 × 5 probes 300 m apart around the spot.
    const grid: Point[] = [];
    for (let row = -2; row <= 2; row++) {
      for (let col = -2; col <= 2; col++) grid.push(offset(offset(spot, row * 0.3, 0), col * 0.3, 90));
    }
    // One request at a time (answers are cached per account and cell: only a new cell costs a
    // search), so the attack does not crowd out the tests running beside it.
    const seen: number[][] = [];
    for (const at of grid) {
      const comps = await comparablesAt(at);
      seen.push(listings.map((l) => comps.find((c) => c.price === l.price)?.distance_km ?? Infinity));
    }

    // Each listing in turn, from the probe that sees it nearest: three rays out to where
    // its distance flips, bisected to 1 m, and the circle through the three flips.
    const locate = async (listing: (typeof listings)[number], i: number): Promise<number> => {
      const start = grid[seen.map((d) => d[i]!).reduce((best, d, j, all) => (d < all[best]! ? j : best), 0)]!;
      const inside = await distanceOf(start, listing.price);
      const flips = await Promise.all(
        [0, 120, 240].map(async (bearing) => {
          let near = 0;
          let far = 0.25;
          while ((await distanceOf(offset(start, far, bearing), listing.price)) === inside && far < 3) {
            near = far;
            far += 0.25;
          }
          while (far - near > 0.001) {
            const mid = (near + far) / 2;
            if ((await distanceOf(offset(start, mid, bearing), listing.price)) === inside) near = mid;
            else far = mid;
          }
          // A flip comes only from moving into another cell: within one cell nothing changes.
          const [a, b] = [offset(start, near, bearing), offset(start, far, bearing)];
          expect(latLngToCell(a.latitude, a.longitude, 8)).not.toBe(latLngToCell(b.latitude, b.longitude, 8));
          return a;
        }),
      );
      const located = circumcentre(flips[0]!, flips[1]!, flips[2]!);
      return (
        distanceKm(located.latitude, located.longitude, listing.at.latitude, listing.at.longitude) * 1000
      );
    };
    const errorsM: number[] = [];
    for (const [i, listing] of listings.entries()) errorsM.push(await locate(listing, i));
    // Rounded distances let this attack place each listing to 0.1 m; bands from cell centres leave
    // it guessing over hundreds of metres (10 m is far inside that, so chance never passes it).
    expect(Math.min(...errorsM), errorsM.map(Math.round).join(', ')).toBeGreaterThan(10);

    // Every point of a cell read the same comparables, and another account's never closer than
    // its band's upper bound.
    const byCell = new Map<string, string>();
    for (const [at, comps] of answers) {
      const [lat, lng] = at.split(',').map(Number) as [number, number];
      const cell = latLngToCell(lat, lng, 8);
      const json = JSON.stringify(comps);
      expect(byCell.get(cell) ?? json).toBe(json);
      byCell.set(cell, json);
      expect(comps.every((c) => c.listing_id === null && [1, 2, 5, 10].includes(c.distance_km))).toBe(true);
    }

    // Two points of the spot's cell: one search from its centre, each point echoed as asked.
    const other = offset(spot, 0.05, 300);
    const [here, there] = [
      await api('GET', query(spot), { key: attacker.key }),
      await api('GET', query(other), { key: attacker.key }),
    ];
    expect(here.body.subject.search_center).toEqual({
      latitude: spot.latitude,
      longitude: spot.longitude,
      h3_index: BigInt(`0x${latLngToCell(spot.latitude, spot.longitude, 8)}`).toString(),
    });
    expect(there.body.subject).toMatchObject({
      latitude: other.latitude,
      longitude: other.longitude,
      search_center: here.body.subject.search_center,
    });
    expect(there.body.comparables).toEqual(here.body.comparables);
  }, 300_000);

  it('error: counts distinct cells per account and mode a day: a new cell past the quota is 429, an asked one is free', async () => {
    const spot = await emptySpot(); // no listings: every answer is 422, and each still counts
    const key = await createTestKey({ mode: 'live', tier: 'business' });
    const testKey = await createTestKey({ mode: 'test', tier: 'business', accountId: key.account_id });
    const redis = await testRedis();
    const cellsKey = estimateCellsKey(env.REDIS_KEY_PREFIX, key.account_id, 'live', new Date());

    // Two points of one cell count once.
    const first = await api('GET', query(spot), { key: key.key });
    expect(first.status).toBe(422);
    expect((await api('GET', query(offset(spot, 0.05, 10)), { key: key.key })).status).toBe(422);
    expect(await redis.scard(cellsKey)).toBe(1);

    // 198 other cells asked already today: one more fits (200 for business), the next does not.
    await redis.sadd(cellsKey, ...Array.from({ length: 198 }, (_, i) => `asked-${i}`));
    const far = (km: number) => offset(spot, km, 90);
    expect((await api('GET', query(far(3)), { key: key.key })).status).toBe(422);
    const refused = await api('GET', query(far(6)), { key: key.key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      retriable: true,
      request_id: expect.stringMatching(/^req_/),
      details: { quota: 'estimate_cells_per_day', limit: 200, used: 200, requested: 1 },
    });
    expect(refused.body.error.message).toMatch(/200 distinct estimate cells/);
    expect(await redis.scard(cellsKey)).toBe(200);

    // Cells asked today still answer; the test mode has its own count.
    expect((await api('GET', query(offset(spot, 0.05, 200)), { key: key.key })).status).toBe(422);
    expect((await api('GET', query(far(3)), { key: key.key })).status).toBe(422);
    expect((await api('GET', query(far(6)), { key: testKey.key })).status).toBe(422);
  });
});
