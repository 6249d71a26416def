// npm run bench:analytics — latency of GET /analytics/pricing, /heatmap, /velocity, /market-share
// and /seasonality answers on a realistic volume: 10 M listings (with their status changes) and
// 100 M view events over two years in the ten cities, seeded
// inside ClickHouse into a separate database (BENCH_DATABASE, default rls_bench; migrations applied
// there). Seeding runs once (minutes); later runs reuse the data unless BENCH_RESEED=1.
// Prints p50/p99 per endpoint, cold (Redis miss → ClickHouse) and warm (Redis hit), through the
// same service functions and cache-aside the API uses, one request at a time.
// BENCH_HTTP=1 then measures pricing, heatmap, velocity and estimate again over HTTP, through a
// gateway started on PORT with the answer cache off (every request cold), as clients see them.
// Knobs: BENCH_LISTINGS (10_000_000), BENCH_VIEWS (100_000_000), BENCH_ROUNDS (3), BENCH_ONLY,
// BENCH_HTTP, BENCH_HTTP_ONLY, CLICKHOUSE_URL, REDIS_URL, PORT.
import { percentile } from './percentile.ts';
import { createClient } from '@clickhouse/client';
import { createAnswerCache } from '../analytics-api/cache.ts';
import { MAX_BOUNDS_AREA_KM2, type Bounds } from '../analytics-api/geo/bounds.ts';
import { periodLabel, previousQuarter, quarterOf, type Quarter } from '../analytics-api/period.ts';
import { createCellFacts } from '../analytics-api/geo/cell-facts.ts';
import { heatmapAnswer } from '../analytics-api/services/heatmap.ts';
import { lastCompleteMonth } from '../analytics-api/params.ts';
import { marketShareAnswer } from '../analytics-api/services/market-share.ts';
import { accuracySource } from '../analytics-api/services/estimate-accuracy.ts';
import type { EstimateParams } from '../analytics-api/estimate-params.ts';
import { pointEstimateAnswer, type EstimateDeps } from '../analytics-api/services/estimate.ts';
import { pricingAnswer } from '../analytics-api/services/pricing.ts';
import { createPricingLag } from '../analytics-api/services/pricing-lag.ts';
import { seasonalityAnswer } from '../analytics-api/services/seasonality.ts';
import { velocityAnswer } from '../analytics-api/services/velocity.ts';
import { createRedis, redisReady } from '../common/clients/redis.ts';
import { citySlugs } from '../common/domain/cities.ts';
import { propertyTypes } from '../common/domain/listing.ts';
import { cityLocation } from '../common/domain/locations.ts';
import { baseEnvSchema, parseEnv } from '../common/env.ts';
import { AppError } from '../common/errors.ts';
import { createLogger } from '../common/logger.ts';
import { migrate } from '../infra/clickhouse/migrate.ts';
import {
  neighbourhoodQuarterPriceSummariesTable,
  preparePriceSummaries,
  stalePriceGroups,
} from '../common/warehouse/price-summaries.ts';
import { listingModel, LISTING_MODEL, reseedListings, seed } from './analytics-seed.ts';
import { benchClickHouse } from './clickhouse-server.ts';
import { seedLifecycle } from './lifecycle-seed.ts';
import { tableOps } from './table-ops.ts';
import { measureEncodings, startHttpGateway } from './analytics-http.ts';

const env = parseEnv(
  baseEnvSchema.pick({
    CLICKHOUSE_NODES: true,
    REDIS_URL: true,
    REDIS_CLUSTER_NODES: true,
    REDIS_KEY_PREFIX: true,
  }),
);
// Several servers (CLICKHOUSE_NODES, e.g. the local stack's shards): the database is sharded over
// them (docs/scaling.md, "ClickHouse shards") and queried through node 1's Distributed tables.
const shardUrls = env.CLICKHOUSE_NODES.length > 1 ? env.CLICKHOUSE_NODES : [];
const database = process.env.BENCH_DATABASE ?? 'rls_bench';
const listings = Number(process.env.BENCH_LISTINGS ?? 10_000_000);
const views = Number(process.env.BENCH_VIEWS ?? 100_000_000);
const log = (message: string) => process.stdout.write(`[bench] ${message}\n`);

await migrate({
  ...benchClickHouse,
  database,
  log,
  cluster: shardUrls.length ? { name: 'rls', nodes: shardUrls, replicated: false } : undefined,
});
const ch = createClient({
  ...benchClickHouse,
  database,
  request_timeout: 3_600_000,
  clickhouse_settings: {
    send_progress_in_http_headers: 1,
    http_headers_progress_interval_ms: '10000',
    distributed_foreground_insert: 1, // a sharded seed is stored on every shard when it returns
  },
  compression: { response: true, request: false },
});
const shards = shardUrls.map((url) =>
  createClient({
    ...benchClickHouse,
    url,
    database,
    request_timeout: 3_600_000, // OPTIMIZE … FINAL of a large table
    clickhouse_settings: { send_progress_in_http_headers: 1, http_headers_progress_interval_ms: '10000' },
  }),
);
log(shards.length ? `sharded over ${shards.length} servers` : 'one server');
const count = async (table: string) =>
  Number(
    (
      await (
        await ch.query({
          query: 'SELECT count() AS n FROM {table:Identifier}',
          query_params: { table },
          format: 'JSONEachRow',
        })
      ).json<{ n: string }>()
    )[0]!.n,
  );

// Views take most of the seeding: a new listing model re-seeds the listings alone.
if (process.env.BENCH_RESEED === '1' || (await count('view_events')) !== views) {
  const t0 = performance.now();
  await seed(ch, listings, views, log, tableOps(ch, shards));
  log(`seeded in ${Math.round((performance.now() - t0) / 1000)} s`);
} else if ((await count('listings')) !== listings || (await listingModel(ch)) !== LISTING_MODEL) {
  const t0 = performance.now();
  if (shards.length) throw new Error('re-seeding the listings alone is single-server only: BENCH_RESEED=1');
  await reseedListings(ch, listings, log);
  log(`listings re-seeded (model ${LISTING_MODEL}) in ${Math.round((performance.now() - t0) / 1000)} s`);
} else if ((await count('listing_status_changes')) === 0) {
  await seedLifecycle(ch, log, tableOps(ch, shards)); // a database seeded before the lifecycle
}
log(
  `data: ${await count('listings')} listings, ${await count('view_events')} view events, ` +
    `${await count('neighbourhood_quarter_stats')} neighbourhood_quarter_stats rows, ${await count('cell_quarter_stats')} cell_quarter_stats rows, ` +
    `${await count('listing_status_changes')} status changes, ${await count('account_quarter_flows')} account_quarter_flows rows`,
);

// The pricing summaries the stream worker's job keeps (stream/jobs/price-summaries.ts), prepared
// here for every group of the seeded set (the job's work on a quiet store). BENCH_PRICE_SUMMARIES=off
// empties them instead: every pricing answer is then computed from its prices.
if (process.env.BENCH_PRICE_SUMMARIES === 'off') {
  await ch.command({ query: `TRUNCATE TABLE ${neighbourhoodQuarterPriceSummariesTable.name}` });
  log('price summaries: none (BENCH_PRICE_SUMMARIES=off)');
} else {
  const t0 = performance.now();
  const { rows: stale } = await stalePriceGroups.run(ch, {});
  await preparePriceSummaries(ch, stale);
  log(`price summaries: ${stale.length} groups prepared in ${Math.round(performance.now() - t0)} ms`);
}

const pricingDeps = { clickhouse: ch, lag: createPricingLag() };
// As in the gateway: one memory of cell ids and centres for the process (the first round fills it).
const heatmapDeps = { clickhouse: ch, cells: createCellFacts() };
const redis = createRedis(
  { url: env.REDIS_URL, clusterNodes: env.REDIS_CLUSTER_NODES },
  { name: 'bench-analytics' },
);
await redisReady(redis);
// Each round gets a fresh cache namespace, so its first pass is all misses (cold) and its second
// all hits (warm). More rounds give the p99 more samples (Dar es Salaam alone: 48 / 28 per round).
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const runId = Date.now();
const cacheFor = (round: number) =>
  createAnswerCache({
    redis,
    keyPrefix: `rls_bench:${runId}:${round}:`,
    parts: 16, // REDIS_GLOBAL_PARTS's default
    ttlSeconds: 600,
    logger: createLogger('warn'),
  });

// The last eight quarters (the seeded two years); the first has no previous quarter data.
const periods: Quarter[] = [quarterOf(new Date())];
while (periods.length < 8) periods.push(previousQuarter(periods.at(-1)!));

function cityBox(city: (typeof citySlugs)[number]): Bounds {
  const c = cityLocation(city)!;
  const dLat = c.radius_km / 111.2;
  const dLng = c.radius_km / (111.2 * Math.cos((c.latitude * Math.PI) / 180));
  return {
    west: c.longitude - dLng,
    south: c.latitude - dLat,
    east: c.longitude + dLng,
    north: c.latitude + dLat,
  };
}

function report(name: string, samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  log(
    `${name.padEnd(52)} n=${String(s.length).padStart(4)}  p50 ${percentile(s, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(s, 99).toFixed(1).padStart(6)} ms  max ${s.at(-1)!.toFixed(1).padStart(6)} ms`,
  );
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const pricingJobs = citySlugs.flatMap((city) =>
  propertyTypes.flatMap((type) => periods.map((period) => ({ city, type, period }))),
);
const heatmapJobs = citySlugs.flatMap((city) =>
  [undefined, ...propertyTypes].flatMap((type) =>
    periods.slice(0, 4).map((period) => ({ city, type, period })),
  ),
);
type Cache = ReturnType<typeof cacheFor>;
/** A question, its answer cached for every account unless `perAccount`. */
const question = (key: string, perAccount = false) => ({ key, perAccount });
/** The calling account of the answers without one of their own (no batch of it ever completes). */
const benchAccount = 'acct_bench';
const pricing = (cache: Cache, j: (typeof pricingJobs)[number]) =>
  cache.getOrCompute(
    question(`pricing:live:${j.city}:${j.type}:${j.period.year}-${j.period.quarter}`),
    benchAccount,
    () => pricingAnswer(pricingDeps, j, false),
  );
const heatmap = (cache: Cache, j: (typeof heatmapJobs)[number]) =>
  cache.getOrCompute(
    question(`heatmap:live:${j.city}:${j.type}:${j.period.year}-${j.period.quarter}`),
    benchAccount,
    () => heatmapAnswer(heatmapDeps, { bounds: cityBox(j.city), type: j.type, period: j.period }, false),
  );

// The lifecycle endpoints (docs/analytics.md, "Listing lifecycle metrics"): velocity for every
// city, type and quarter; market share for one of the 5,000 seeded accounts over the last four
// quarters; seasonality's 24-month series for every city and type.
const shareAccount = 'acct42';
const velocityJobs = pricingJobs;
const shareJobs = pricingJobs.filter((j) => periods.slice(0, 4).includes(j.period));
const seasonalityJobs = citySlugs.flatMap((city) => propertyTypes.map((type) => ({ city, type })));
const end = lastCompleteMonth(new Date());
const velocity = (cache: Cache, j: (typeof velocityJobs)[number]) =>
  cache.getOrCompute(
    question(`velocity:live:${j.city}:${j.type}:${j.period.year}-${j.period.quarter}`),
    shareAccount,
    () => velocityAnswer(ch, j, false, shareAccount),
  );
const marketShare = (cache: Cache, j: (typeof shareJobs)[number]) =>
  cache.getOrCompute(
    question(
      `market-share:live:${shareAccount}:${j.city}:${j.type}:${j.period.year}-${j.period.quarter}`,
      true,
    ),
    shareAccount,
    () => marketShareAnswer(ch, j, false, shareAccount),
  );
const seasonality = (cache: Cache, j: (typeof seasonalityJobs)[number]) =>
  cache.getOrCompute(question(`seasonality:live:${j.city}:${j.type}:24:${end}`), benchAccount, () =>
    seasonalityAnswer(ch, { ...j, months: 24, end }, false, shareAccount),
  );

// Rent estimates (docs/analytics.md, "Rent estimates"): 1,000 places and units drawn from the
// seeded live listings (the mix of cities, types and sizes that asks), as of now; the 2 km probe
// answers most, sparse places widen to 10 km and some to a year; 422s count as answers.
const estimateDeps: EstimateDeps = { clickhouse: ch, accuracy: accuracySource(ch, 600), usdTzs: 2_500 };
// Rows named and typed as the estimate's parameters (nullable columns come back as null).
const estimateJobs = await (
  await ch.query({
    query: `SELECT city, toString(property_type) AS type, latitude, longitude, bedrooms, bathrooms,
              area_sqm AS areaSqm, 'TZS' AS currency
            FROM rent_comparables WHERE is_test = 0 ORDER BY cityHash64(listing_id) LIMIT 1000`,
    format: 'JSONEachRow',
  })
).json<EstimateParams & { city: string }>();
const estimateSteps = new Map<string, number>();
const estimate = (cache: Cache, j: (typeof estimateJobs)[number]) =>
  cache.getOrCompute(
    question(
      `estimate:live:${j.latitude},${j.longitude}:${[j.type, j.bedrooms, j.bathrooms, j.areaSqm].join(':')}:TZS`,
    ),
    benchAccount,
    async () => {
      try {
        const answer = await pointEstimateAnswer(estimateDeps, j, false, benchAccount);
        const step = `${answer.radius_km} km / ${answer.max_age_days} days`;
        estimateSteps.set(step, (estimateSteps.get(step) ?? 0) + 1);
        return answer;
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'insufficient_comparables') throw error;
        estimateSteps.set('422', (estimateSteps.get('422') ?? 0) + 1);
        return null;
      }
    },
  );

// Warm-up of both code paths (connections, JIT, h3-js), straight through the services so no
// measured answer is cached: a running service is warm, and a first call measured ~100–300 ms.
// BENCH_ONLY=velocity,seasonality,market-share,estimate (names as printed) measures a subset, and
// warms up only that subset (BENCH_ONLY=none with BENCH_HTTP=1: the HTTP measurements alone).
const only = process.env.BENCH_ONLY?.split(',');
const measured = (name: string) => !only || only.some((o) => name.startsWith(o));
if (measured('pricing'))
  for (const job of pricingJobs.slice(0, 8)) await pricingAnswer(pricingDeps, job, false);
if (measured('heatmap'))
  for (const job of heatmapJobs.slice(0, 8))
    await heatmapAnswer(
      heatmapDeps,
      { bounds: cityBox(job.city), type: job.type, period: job.period },
      false,
    );
if (measured('estimate')) for (const job of estimateJobs.slice(0, 8)) await estimate(cacheFor(-1), job);
if (measured('velocity'))
  for (const job of velocityJobs.slice(0, 4)) await velocityAnswer(ch, job, false, shareAccount);
if (measured('market-share'))
  for (const job of shareJobs.slice(0, 4)) await marketShareAnswer(ch, job, false, shareAccount);
if (measured('seasonality'))
  for (const job of seasonalityJobs.slice(0, 4))
    await seasonalityAnswer(ch, { ...job, months: 24, end }, false, shareAccount);

for (const [name, jobs, run] of (
  [
    ['pricing', pricingJobs, pricing],
    ['heatmap (city box)', heatmapJobs, heatmap],
    ['velocity', velocityJobs, velocity],
    ['market-share', shareJobs, marketShare],
    ['seasonality', seasonalityJobs, seasonality],
    ['estimate', estimateJobs, estimate],
  ] as const
).filter(([name]) => measured(name))) {
  const cold: number[] = [];
  const darCold: number[] = [];
  const darAllTypes: number[] = [];
  let darAllTypesCpu = 0; // ms of this process's CPU (client, parsing, the answer) over those calls
  const warm: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const cache = cacheFor(round);
    const call = (job: never) => (run as (c: Cache, j: never) => Promise<unknown>)(cache, job);
    for (const job of jobs as never[]) {
      const cpu0 = process.cpuUsage();
      const ms = await timed(() => call(job));
      const cpu = process.cpuUsage(cpu0);
      cold.push(ms);
      const { city, type } = job as { city: string; type?: string };
      if (city === 'dar_es_salaam') darCold.push(ms);
      if (city === 'dar_es_salaam' && type === undefined) {
        darAllTypes.push(ms);
        darAllTypesCpu += (cpu.user + cpu.system) / 1000;
      }
    }
    for (const job of jobs as never[]) warm.push(await timed(() => call(job)));
  }
  report(`${name} cold (miss → ClickHouse)`, cold);
  report(`${name} cold, Dar es Salaam only`, darCold);
  if (darAllTypes.length) {
    report(`${name} cold, Dar es Salaam box, all types`, darAllTypes);
    log(
      `${name} cold, Dar es Salaam box, all types: ${(darAllTypesCpu / darAllTypes.length).toFixed(1)} ms of this process's CPU per answer`,
    );
  }
  report(`${name} warm (Redis hit)`, warm);
}
// BENCH_HTTP_ONLY=pricing,heatmap,velocity,estimate picks the series over HTTP (default all).
const httpOnly = process.env.BENCH_HTTP_ONLY?.split(',');
if (process.env.BENCH_HTTP === '1') {
  const http = await startHttpGateway({
    database,
    port: Number(process.env.PORT ?? 8080),
    redis,
    keyPrefix: env.REDIS_KEY_PREFIX,
  });
  try {
    const pricingPath = (j: (typeof pricingJobs)[number]) =>
      `/analytics/pricing?city=${j.city}&type=${j.type}&period=${periodLabel(j.period)}`;
    const heatmapPath = (j: (typeof heatmapJobs)[number]) => {
      const b = cityBox(j.city);
      const bounds = [b.west, b.south, b.east, b.north].map((x) => x.toFixed(6)).join(',');
      return `/analytics/heatmap?bounds=${bounds}&period=${periodLabel(j.period)}${j.type ? `&type=${j.type}` : ''}`;
    };
    // Velocity asked by the bench's own key: an account with no listings in the seeded market, so
    // its suppression groups every other account (the statement the goal is about). Estimates:
    // the places above; a 422 (no 5 comparables) is an answer.
    const estimatePath = (j: (typeof estimateJobs)[number]) =>
      `/analytics/estimate?lat=${j.latitude}&lng=${j.longitude}&type=${j.type}` +
      (j.bedrooms === null ? '' : `&bedrooms=${j.bedrooms}`) +
      (j.bathrooms === null ? '' : `&bathrooms=${j.bathrooms}`) +
      (j.areaSqm === null ? '' : `&area_sqm=${j.areaSqm}`);
    const httpSeries = [
      ['pricing over HTTP', pricingJobs.map((j) => ({ job: j, path: pricingPath(j) }))],
      ['heatmap (city box) over HTTP', heatmapJobs.map((j) => ({ job: j, path: heatmapPath(j) }))],
      [
        'velocity over HTTP',
        velocityJobs.map((j) => ({ job: j, path: pricingPath(j).replace('pricing', 'velocity') })),
      ],
      [
        'estimate over HTTP',
        estimateJobs.map((j) => ({
          job: { ...j, type: j.type as string | undefined },
          path: estimatePath(j),
        })),
      ],
    ] as const;
    for (const [name, paths] of httpSeries) {
      if (httpOnly && !httpOnly.includes(name.split(' ')[0]!)) continue;
      for (const { path } of paths.slice(0, 8)) await http.timedGet(path, [422]); // warm-up
      const cold: number[] = [];
      const darCold: number[] = [];
      const darAllTypes: number[] = [];
      for (let round = 0; round < rounds; round++) {
        for (const { job, path } of paths) {
          const ms = await http.timedGet(path, [422]);
          cold.push(ms);
          if (job.city === 'dar_es_salaam') darCold.push(ms);
          if (job.city === 'dar_es_salaam' && job.type === undefined) darAllTypes.push(ms);
        }
      }
      report(`${name}, cold`, cold);
      report(`${name}, cold, Dar es Salaam only`, darCold);
      if (darAllTypes.length) report(`${name}, cold, Dar es Salaam box, all types`, darAllTypes);
    }
    // What compression changes for the largest answer: the Dar es Salaam box, all types, last quarter.
    await measureEncodings(
      http,
      heatmapPath({ city: 'dar_es_salaam', type: undefined, period: periods[1]! }),
      'heatmap Dar es Salaam box over HTTP',
      report,
    );
  } finally {
    await http.close();
  }
}
const dar = await heatmapAnswer(
  heatmapDeps,
  { bounds: cityBox('dar_es_salaam'), period: periods[1]! },
  false,
);
log(
  `Dar es Salaam box ${JSON.stringify(cityBox('dar_es_salaam'))}: ${dar.cells.length} cells (max box ${MAX_BOUNDS_AREA_KM2} km²)`,
);
const p = await pricingAnswer(
  pricingDeps,
  { city: 'dar_es_salaam', type: 'apartment', period: periods[1]! },
  false,
);
log(
  `Dar es Salaam apartments ${p.period}: ${p.summary.total_listings} listings, ${p.by_neighborhood.length} neighbourhoods`,
);

log(`estimate steps (cold requests): ${[...estimateSteps].map(([step, n]) => `${step}: ${n}`).join(', ')}`);
redis.disconnect();
await ch.close();
for (const shard of shards) await shard.close();
