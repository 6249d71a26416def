// A deployment's size from the recorded unit costs (unit-costs.json): CPU per stored listing per
// process, CPU per analytics answer, bytes per listing in each store. Pure arithmetic, so the guide
// (docs/sizing.md) and `npm run sizing` give the same figures for the same volumes.
import { z } from 'zod';

const ms = z.object({ api: z.number().positive(), clickhouse: z.number().positive() });
export const unitCostsSchema = z.object({
  cpu_us_per_stored_listing: z.object({
    api: z.number().positive(),
    stream_worker: z.number().positive(),
    clickhouse: z.number().positive(),
    redis: z.number().positive(),
    kafka: z.number().positive(),
    images: z.number().positive(),
  }),
  analytics_cpu_ms_per_answer: z.object({
    pricing: ms,
    heatmap: ms,
    velocity: ms,
    market_share: ms,
    seasonality: ms,
  }),
  analytics_mix: z.object({
    pricing: z.number().min(0),
    heatmap: z.number().min(0),
    velocity: z.number().min(0),
    market_share: z.number().min(0),
    seasonality: z.number().min(0),
  }),
  bytes_per_listing: z.object({
    clickhouse_disk: z.number().positive(),
    redis_for_30_days: z.number().positive(),
    redis_for_good: z.number().positive(),
    kafka_message: z.number().positive(),
  }),
  kafka: z.object({ retention_days: z.number().positive(), replication_factor: z.number().int().positive() }),
});
export type UnitCosts = z.infer<typeof unitCostsSchema>;

export interface Volumes {
  listingsPerDay: number;
  analyticsPerSecond: number;
  /** Busiest hour's rate over the day's average (ingest comes in bursts of uploads). */
  peakFactor: number;
  /** Share of analytics answered from the API's cache (no ClickHouse work, ~no API work). */
  cacheHitRatio: number;
  /** Days of listings the warehouse keeps (its disk grows by a day's listings every day). */
  keepDays: number;
}

/** What one machine of each kind brings; headroom: the share of a core or of memory we plan to use. */
export const MACHINE = {
  headroom: 0.6,
  clickhouseShardCores: 8,
  clickhouseShardDiskGb: 2_000,
  redisMasterMemoryGb: 8,
  /** A Node process uses one core for its JavaScript. */
  nodeProcessCores: 1,
} as const;

export interface Plan {
  peakListingsPerSecond: number;
  cores: Record<'api' | 'stream_worker' | 'images' | 'clickhouse' | 'redis' | 'kafka', number>;
  processes: { api: number; stream_worker: number; images: number };
  kafkaPartitions: number;
  clickhouseShards: number;
  clickhouseDiskGb: number;
  redisMemoryGb: number;
  redisMasters: number;
  kafkaDiskGb: number;
}

const GB = 1e9;
const round1 = (n: number) => Math.round(n * 10) / 10;
const round2 = (n: number) => Math.round(n * 100) / 100;

export function plan(costs: UnitCosts, v: Volumes): Plan {
  const peakListings = (v.listingsPerDay / 86_400) * v.peakFactor;
  const ingestCores = (us: number) => (peakListings * us) / 1e6;
  const misses = v.analyticsPerSecond * (1 - v.cacheHitRatio);
  let analyticsApiMs = 0;
  let analyticsClickhouseMs = 0;
  for (const [name, share] of Object.entries(costs.analytics_mix)) {
    const cost = costs.analytics_cpu_ms_per_answer[name as keyof UnitCosts['analytics_mix']];
    analyticsApiMs += share * cost.api;
    analyticsClickhouseMs += share * cost.clickhouse;
  }
  const c = costs.cpu_us_per_stored_listing;
  const cores = {
    api: ingestCores(c.api) + (misses * analyticsApiMs) / 1_000,
    stream_worker: ingestCores(c.stream_worker),
    images: ingestCores(c.images),
    clickhouse: ingestCores(c.clickhouse) + (misses * analyticsClickhouseMs) / 1_000,
    redis: ingestCores(c.redis),
    kafka: ingestCores(c.kafka),
  };
  const processesFor = (coresNeeded: number) =>
    Math.max(2, Math.ceil(coresNeeded / (MACHINE.nodeProcessCores * MACHINE.headroom)));
  const processes = {
    api: processesFor(cores.api),
    stream_worker: processesFor(cores.stream_worker),
    images: processesFor(cores.images),
  };
  const b = costs.bytes_per_listing;
  const clickhouseDiskGb = (v.listingsPerDay * v.keepDays * b.clickhouse_disk) / GB;
  const redisMemoryGb = (v.listingsPerDay * (30 * b.redis_for_30_days + v.keepDays * b.redis_for_good)) / GB;
  const kafkaDiskGb =
    (v.listingsPerDay * costs.kafka.retention_days * b.kafka_message * costs.kafka.replication_factor) / GB;
  const clickhouseShards = Math.max(
    1,
    Math.ceil(cores.clickhouse / (MACHINE.clickhouseShardCores * MACHINE.headroom)),
    Math.ceil(clickhouseDiskGb / (MACHINE.clickhouseShardDiskGb * MACHINE.headroom)),
  );
  // Redis runs commands on one thread: a master gives at most one core, and holds its memory.
  const redisMasters = Math.max(
    3,
    Math.ceil(cores.redis / MACHINE.headroom),
    Math.ceil(redisMemoryGb / (MACHINE.redisMasterMemoryGb * MACHINE.headroom)),
  );
  return {
    peakListingsPerSecond: Math.round(peakListings),
    cores: Object.fromEntries(Object.entries(cores).map(([k, n]) => [k, round2(n)])) as Plan['cores'],
    processes,
    // Each worker of the group consumes at least one partition; twice as many leaves room to add workers.
    kafkaPartitions: Math.max(6, 2 * processes.stream_worker),
    clickhouseShards,
    clickhouseDiskGb: round1(clickhouseDiskGb),
    redisMemoryGb: round1(redisMemoryGb),
    redisMasters,
    kafkaDiskGb: round1(kafkaDiskGb),
  };
}
