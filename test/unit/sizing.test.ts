// The sizing guide's arithmetic (infra/deploy/sizing/plan.ts) on the recorded unit costs: the
// figures follow the volumes, and every store's answer is the bound that binds it.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MACHINE, plan, unitCostsSchema, type Volumes } from '../../infra/deploy/sizing/plan.ts';

const costs = unitCostsSchema.parse(
  JSON.parse(fs.readFileSync(new URL('../../infra/deploy/sizing/unit-costs.json', import.meta.url), 'utf8')),
);
const volumes = (v: Partial<Volumes>): Volumes => ({
  listingsPerDay: 1_000_000,
  analyticsPerSecond: 100,
  peakFactor: 3,
  cacheHitRatio: 0,
  keepDays: 365,
  ...v,
});

describe('sizing plan', () => {
  it('happy: ingest CPU is the peak rate times each process µs per stored listing', () => {
    const p = plan(costs, volumes({ listingsPerDay: 86_400_000, analyticsPerSecond: 0, peakFactor: 1 }));
    // 1,000 listings a second: the µs per listing become thousandths of a core.
    expect(p.peakListingsPerSecond).toBe(1_000);
    expect(p.cores.stream_worker).toBeCloseTo(costs.cpu_us_per_stored_listing.stream_worker / 1_000, 1);
    expect(p.cores.clickhouse).toBeCloseTo(costs.cpu_us_per_stored_listing.clickhouse / 1_000, 1);
  });

  it('happy: analytics CPU follows the mix and the cache; a full cache leaves only ingest', () => {
    const cold = plan(costs, volumes({ listingsPerDay: 0 }));
    const half = plan(costs, volumes({ listingsPerDay: 0, cacheHitRatio: 0.5 }));
    const warm = plan(costs, volumes({ listingsPerDay: 0, cacheHitRatio: 1 }));
    const mixMs = Object.entries(costs.analytics_mix).reduce(
      (sum, [name, share]) =>
        sum + share * costs.analytics_cpu_ms_per_answer[name as keyof typeof costs.analytics_mix].clickhouse,
      0,
    );
    expect(cold.cores.clickhouse).toBeCloseTo((100 * mixMs) / 1_000, 1);
    expect(Math.abs(half.cores.clickhouse - cold.cores.clickhouse / 2)).toBeLessThanOrEqual(0.01); // rounded to 0.01
    expect(warm.cores.clickhouse).toBe(0);
  });

  it('edge: stores grow with the days kept; shards and masters are set by whichever of CPU, disk or memory binds', () => {
    const year = plan(costs, volumes({ listingsPerDay: 10_000_000, analyticsPerSecond: 10 }));
    const b = costs.bytes_per_listing;
    expect(year.clickhouseDiskGb).toBeCloseTo((10_000_000 * 365 * b.clickhouse_disk) / 1e9, 0);
    expect(year.redisMemoryGb).toBeCloseTo(
      (10_000_000 * (30 * b.redis_for_30_days + 365 * b.redis_for_good)) / 1e9,
      0,
    );
    expect(year.redisMasters).toBe(
      Math.ceil(year.redisMemoryGb / (MACHINE.redisMasterMemoryGb * MACHINE.headroom)),
    );
    // At 1,000 answers a second the warehouse's CPU, not its disk, sets the shards.
    const busy = plan(costs, volumes({ listingsPerDay: 100_000, analyticsPerSecond: 1_000 }));
    expect(busy.clickhouseShards).toBe(
      Math.ceil(busy.cores.clickhouse / (MACHINE.clickhouseShardCores * MACHINE.headroom)),
    );
    expect(busy.clickhouseShards).toBeGreaterThan(1);
    // Never fewer than two of each process (one may be restarting) nor fewer than three masters.
    const small = plan(costs, volumes({ listingsPerDay: 1, analyticsPerSecond: 0 }));
    expect(small.processes).toEqual({ api: 2, stream_worker: 2, images: 2 });
    expect(small.redisMasters).toBe(3);
  });
});
