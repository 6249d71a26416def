// `npm run sizing -- [--listings-per-day N] [--analytics-per-second N] [--peak-factor F]
// [--cache-hit-ratio R] [--keep-days D]`: the size of a deployment for these volumes, from the
// recorded unit costs (docs/sizing.md). Without volumes it prints the guide's grid: 100 k, 1 M and
// 10 M listings a day by 10, 100 and 1,000 analytics requests a second.
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { plan, unitCostsSchema, type Plan, type Volumes } from './plan.ts';

const costs = unitCostsSchema.parse(
  JSON.parse(fs.readFileSync(new URL('./unit-costs.json', import.meta.url), 'utf8')),
);

function number(name: string, raw: string | undefined, fallback: number, max = Infinity): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > max) {
    const range = max === Infinity ? 'a number ≥ 0' : `a number from 0 to ${max}`;
    process.stderr.write(`sizing: --${name} must be ${range}, got "${raw}"\n`);
    process.exit(2);
  }
  return value;
}

const { values } = parseArgs({
  options: {
    'listings-per-day': { type: 'string' },
    'analytics-per-second': { type: 'string' },
    'peak-factor': { type: 'string' },
    'cache-hit-ratio': { type: 'string' },
    'keep-days': { type: 'string' },
  },
});
const shared = {
  peakFactor: number('peak-factor', values['peak-factor'], 3),
  cacheHitRatio: number('cache-hit-ratio', values['cache-hit-ratio'], 0, 1),
  keepDays: number('keep-days', values['keep-days'], 365),
};

function row(v: Volumes, p: Plan): string {
  const cells = [
    v.listingsPerDay.toLocaleString('en'),
    v.analyticsPerSecond.toLocaleString('en'),
    p.peakListingsPerSecond.toLocaleString('en'),
    `${p.processes.api} / ${p.processes.stream_worker} / ${p.processes.images}`,
    `${p.cores.api} / ${p.cores.stream_worker} / ${p.cores.images}`,
    `${p.clickhouseShards} (${p.cores.clickhouse} cores, ${p.clickhouseDiskGb} GB)`,
    `${p.redisMasters} (${p.cores.redis} cores, ${p.redisMemoryGb} GB)`,
    `${p.kafkaPartitions} (${p.cores.kafka} cores, ${p.kafkaDiskGb} GB)`,
  ];
  return `| ${cells.join(' | ')} |`;
}

const listings = values['listings-per-day'];
const analytics = values['analytics-per-second'];
const grid =
  listings === undefined && analytics === undefined
    ? [100_000, 1_000_000, 10_000_000].flatMap((l) => [10, 100, 1_000].map((a) => [l, a] as const))
    : [[number('listings-per-day', listings, 0), number('analytics-per-second', analytics, 0)] as const];

process.stdout.write(
  `peak factor ${shared.peakFactor}, cache hit ratio ${shared.cacheHitRatio}, ${shared.keepDays} days kept\n\n` +
    '| listings/day | analytics/s | peak listings/s | processes API / worker / images | cores API / worker / images | ClickHouse shards (cores, disk) | Redis masters (cores, memory) | Kafka partitions (cores, disk) |\n' +
    '|---|---|---|---|---|---|---|---|\n',
);
for (const [listingsPerDay, analyticsPerSecond] of grid) {
  const v: Volumes = { listingsPerDay, analyticsPerSecond, ...shared };
  process.stdout.write(`${row(v, plan(costs, v))}\n`);
}
