// The rent estimate's backtest (stream/estimate/backtest.ts) on a hand-made market in two years of
// its own (claimYear): every figure is recomputed here from the endpoint's own search
// (estimatePoint from the point's cell centre, as GET /analytics/estimate searches: ClickHouse, not
// the backtest's in-memory index) and by hand for the baseline,
// then read back through GET /analytics/estimate; last, the stream worker's schedule and its lock.
// One file: the endpoint reads the latest run, so the tests that write runs take turns.
import { randomUUID } from 'node:crypto';
import type { Platform } from '../../common/platform.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatePoint } from '../../analytics-api/services/estimate.ts';
import { searchCentre } from '../../common/estimate/search-centre.ts';
import { runBacktest, type BacktestReport } from '../../stream/estimate/backtest.ts';
import { createLogger } from '../../common/logger.ts';
import { AppError } from '../../common/errors.ts';
import { api, createTestKey, env, eventually, testClickHouse, testRedis } from '../support/api.ts';
import { estimateBacktestJob } from '../../stream/jobs/estimate-backtest.ts';
import { jobLockKey, scheduleJob } from '../../stream/jobs/schedule.ts';
import { claimYear, medianOf } from '../support/analytics-fixtures.ts';
import {
  emptySpot,
  insertEstimateListings,
  offset,
  type EstimateListing,
} from '../support/estimate-fixtures.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';
import { setTimeout as sleep } from 'node:timers/promises';

/** Deterministic uniforms and standard normals (Irwin–Hall of four), so failures repeat. */
const fraction = (i: number, k: number) => (Math.abs(Math.sin(i * 12.9898 + k * 78.233)) * 43_758.5453) % 1;
/** Where the endpoint searches from for a point: its cell's centre. */
const centreOf = (at: { latitude: number; longitude: number }) => {
  const { latitude, longitude } = searchCentre(at.latitude, at.longitude);
  return { latitude, longitude };
};
const normal = (i: number) =>
  (fraction(i, 3) + fraction(i, 4) + fraction(i, 5) + fraction(i, 6) - 2) * Math.sqrt(3);

describe('rent estimate backtest', () => {
  let year: number;
  let report: BacktestReport;
  let market: (EstimateListing & { id: string })[];
  const origins = () => [9, 10, 11].map((m) => Date.UTC(year + 1, m, 1));

  beforeAll(async () => {
    year = await claimYear(undefined, 2);
    // Two years of houses around one point: a price gradient eastwards, listing-level noise,
    // 3 bedrooms mostly (the segment under test), some with 2.
    const centre = { latitude: -9.1, longitude: 33.4 };
    const listings: EstimateListing[] = [];
    for (let i = 0; i < 480; i++) {
      const at = offset(centre, 3 * Math.sqrt(fraction(i, 1)), 360 * fraction(i, 2));
      const east = (at.longitude - centre.longitude) * 111;
      const bedrooms = i % 5 === 0 ? 2 : 3;
      // East is dearer (±50 % across the area); each unit ±~12 % of its own; a bedroom less −13 %.
      const rent = (1_000_000 * (1 + east / 6) * Math.exp(0.12 * normal(i))) / (bedrooms === 2 ? 1.15 : 1);
      listings.push({
        at,
        listedAt: new Date(Date.UTC(year, 0, 3) + Math.floor((i / 480) * 720 * DAY_MS) + (i % 7) * 3_600_000),
        priceTzs: Math.round(rent / 1000) * 1000,
        type: 'house',
        bedrooms,
        accountId: `backtest-${i % 9}`,
      });
    }
    // Far away: listed in the backtested months, but nothing within 10 km to compare with.
    for (let i = 0; i < 3; i++) {
      listings.push({
        at: offset(centre, 60, 90 + i),
        listedAt: new Date(Date.UTC(year + 1, 10, 10 + i)),
        priceTzs: 700_000,
        type: 'house',
        bedrooms: 3,
      });
    }
    // A unit pushed twice (same fingerprint, two accounts): the later copy's estimate must not see
    // the earlier one, although it is the nearest listing.
    const twin = {
      at: centre,
      priceTzs: 3_000_000,
      type: 'house',
      bedrooms: 3,
      title: `Twin ${randomUUID()}`,
    };
    listings.push({ ...twin, listedAt: new Date(Date.UTC(year + 1, 9, 20)), accountId: 'twin-a' });
    listings.push({ ...twin, listedAt: new Date(Date.UTC(year + 1, 10, 20)), accountId: 'twin-b' });
    const ids = await insertEstimateListings(listings);
    market = listings.map((l, i) => ({ ...l, id: ids[i]! }));
    report = await runBacktest(testClickHouse(), { asOf: new Date(Date.UTC(year + 2, 0, 1)), months: 3 });
  });

  it('happy: estimates each listing of a month from the listings before it, exactly as the endpoint would', async () => {
    const segment = report.live.find((f) => f.level === 'segment' && f.bedrooms === '3');
    expect(segment).toMatchObject({ city: '', property_type: 'house' });
    const fingerprints = new Map(
      (
        await (
          await testClickHouse().query({
            query: `SELECT toString(listing_id) AS id, toString(fingerprint) AS fp FROM rent_comparables
                    WHERE listing_id IN {ids:Array(UUID)}`,
            query_params: { ids: market.map((l) => l.id) },
            format: 'JSONEachRow',
          })
        ).json<{ id: string; fp: string }>()
      ).map((r) => [r.id, BigInt(r.fp)]),
    );
    const apes: number[] = [];
    const baselineApes: number[] = [];
    const residuals: number[] = [];
    let subjects = 0;
    for (const [m, origin] of origins().entries()) {
      const next = origins()[m + 1] ?? Date.UTC(year + 2, 0, 1);
      const inMonth = market.filter(
        (l) => l.bedrooms === 3 && l.listedAt!.getTime() >= origin && l.listedAt!.getTime() < next,
      );
      subjects += inMonth.length;
      const before = market.filter(
        (l) =>
          l.bedrooms === 3 && l.listedAt!.getTime() < origin && l.listedAt!.getTime() >= origin - 90 * DAY_MS,
      );
      const baseline = before.length >= 5 ? medianOf(before.map((l) => l.priceTzs)) : null;
      for (const l of inMonth) {
        if (baseline !== null) baselineApes.push(Math.abs(baseline - l.priceTzs) / l.priceTzs);
        try {
          const { point } = await estimatePoint(
            testClickHouse(),
            { ...centreOf(l.at), type: 'house', city: '', bedrooms: 3, bathrooms: 1, areaSqm: null },
            {
              isTest: false,
              now: new Date(origin),
              exclude: { listingId: l.id, fingerprint: fingerprints.get(l.id)! },
            },
          );
          apes.push(Math.abs(point.rentTzs - l.priceTzs) / l.priceTzs);
          residuals.push(Math.log(l.priceTzs / point.rentTzs));
        } catch (error) {
          expect((error as AppError).code).toBe('insufficient_comparables');
        }
      }
    }
    expect(segment!.subjects).toBe(subjects);
    expect(segment!.n).toBe(apes.length);
    expect(subjects - apes.length).toBe(3); // the far ones
    expect(segment!.median_ape).toBeCloseTo(medianOf(apes), 9);
    expect(segment!.within_10pct).toBeCloseTo(apes.filter((a) => a <= 0.1).length / apes.length, 9);
    expect(segment!.within_20pct).toBeCloseTo(apes.filter((a) => a <= 0.2).length / apes.length, 9);
    expect(segment!.baseline_n).toBe(baselineApes.length);
    expect(segment!.baseline_median_ape).toBeCloseTo(medianOf(baselineApes), 9);
    // The published 80 % interval: nearest-rank 10th and 90th percentiles of actual ÷ estimate.
    const sorted = [...residuals].sort((a, b) => a - b);
    const rank = (p: number) => sorted[Math.ceil(p * sorted.length) - 1]!;
    expect(segment).toMatchObject({ interval_level: 'segment', interval_target: 0.8 });
    expect(segment!.interval_low).toBeCloseTo(Math.exp(rank(0.1)), 9);
    expect(segment!.interval_high).toBeCloseTo(Math.exp(rank(0.9)), 9);
    expect(segment!.interval_coverage).toBeGreaterThan(0.5);
    // The market has a gradient the baseline cannot see: comparables nearby beat it.
    expect(segment!.median_ape!).toBeLessThan(segment!.baseline_median_ape!);
  });

  it('happy: puts the segment’s figures and calibrated interval into every estimate', async () => {
    const at = await emptySpot();
    await insertEstimateListings(
      Array.from({ length: 6 }, (_, i) => ({
        at: offset(at, 0.4, i * 60),
        daysOld: 5,
        priceTzs: 1_000_000,
        type: 'house',
        bedrooms: 3,
      })),
    );
    const key = await createTestKey({ mode: 'live' });
    const row = report.live.find((f) => f.level === 'segment' && f.bedrooms === '3')!;
    const body = await eventually(async () => {
      const response = await api(
        'GET',
        `/api/v1/analytics/estimate?lat=${at.latitude}&lng=${at.longitude}&type=house&bedrooms=3&bathrooms=1`,
        { key: key.key },
      );
      // The API re-reads the latest run once per cache lifetime (5 s in tests).
      return response.body?.accuracy?.backtest?.run_at === `${report.runAt.replace(' ', 'T')}Z`
        ? response.body
        : undefined;
    }, 30_000);
    expect(body.accuracy).toEqual({
      segment: { city: null, property_type: 'house', bedrooms: '3' },
      n: row.n,
      median_ape: Math.round(row.median_ape! * 1000) / 1000,
      within_10pct: Math.round(row.within_10pct! * 1000) / 1000,
      within_20pct: Math.round(row.within_20pct! * 1000) / 1000,
      interval_coverage: Math.round(row.interval_coverage! * 1000) / 1000,
      interval_target: 0.8,
      baseline_median_ape: Math.round(row.baseline_median_ape! * 1000) / 1000,
      baseline_within_10pct: Math.round(row.baseline_within_10pct! * 1000) / 1000,
      interval_calibration: 'segment',
      backtest: {
        run_at: `${report.runAt.replace(' ', 'T')}Z`,
        from_month: report.fromMonth,
        to_month: report.toMonth,
      },
    });
    expect(body.estimate).toEqual({
      rent: 1_000_000,
      low: Math.round((1_000_000 * row.interval_low) / 1000) * 1000,
      high: Math.round((1_000_000 * row.interval_high) / 1000) * 1000,
      currency: 'TZS',
      kind: 'asking_rent',
      interval_target: 0.8,
      interval_calibrated: true,
    });
  });

  describe('on the stream worker’s schedule', () => {
    const tasks: { stop(): Promise<void> }[] = [];
    afterAll(async () => {
      for (const task of tasks) await task.stop();
    });

    it('happy: runs on its cron, one worker at a time', async () => {
      const redis = await testRedis();
      const platform = { env, redis, logger: createLogger('error') } as unknown as Platform;
      const runsSince = async (since: string) => {
        const result = await testClickHouse().query({
          query: `SELECT count(DISTINCT run_id) AS runs FROM estimate_accuracy WHERE run_at >= {since:DateTime('UTC')}`,
          query_params: { since },
          format: 'JSONEachRow',
        });
        return Number((await result.json<{ runs: string }>())[0]?.runs);
      };
      // Another worker holds the locks of the next seconds' runs: none of them runs here.
      const now = Math.ceil(Date.now() / 1000) * 1000;
      for (let s = 0; s < 8; s++) {
        const at = new Date(now + s * 1000);
        await redis.set(
          jobLockKey(env.REDIS_KEY_PREFIX, 'estimate-backtest', at),
          'another-worker',
          'PX',
          60_000,
        );
      }
      const since = new Date(now).toISOString().slice(0, 19).replace('T', ' ');
      const job = estimateBacktestJob(platform, '*/2 * * * * *', 1);
      tasks.push(scheduleJob(job, { redis, prefix: env.REDIS_KEY_PREFIX, logger: platform.logger }));
      await sleep(5_000);
      expect(await runsSince(since)).toBe(0);
      await eventually(
        async () => ((await runsSince(since)) > 0 ? true : undefined),
        40_000,
        'a scheduled run',
      );
      await tasks.pop()!.stop();
    });
  });
});
