// npm run bench:statements — what each statement of the pricing and heatmap answers costs inside
// ClickHouse, on the benchmark database bench/analytics.ts seeded (BENCH_DATABASE, default
// rls_bench): CPU (UserTimeMicroseconds + SystemTimeMicroseconds of system.events over a run of
// one statement, divided by its count: the local server is clickhouse-local, which keeps no
// system.query_log) and wall time per call (the server's elapsed_ns from X-ClickHouse-Summary),
// one call at a time, for Dar es Salaam (the largest city) over every type and the last quarters.
// `SELECT 1` is the floor every statement pays. Run it on a server nothing else queries.
// Knobs: BENCH_REPEAT (3: passes over the jobs), BENCH_DATABASE, CLICKHOUSE_URL.
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { parentsForBounds } from '../analytics-api/geo/h3-ranges.ts';
import { previousQuarter, quarterOf, quarterStart, type Quarter } from '../analytics-api/period.ts';
import { cellStats } from '../analytics-api/queries/heatmap.ts';
import { marketTotals } from '../analytics-api/queries/market.ts';
import { pricingPricesStatement, pricingSummaryStatement } from '../analytics-api/queries/pricing.ts';
import { propertyTypes } from '../common/domain/listing.ts';
import { cityLocation } from '../common/domain/locations.ts';
import type { NamedQuery } from '../common/warehouse/query.ts';
import { benchClickHouse } from './clickhouse-server.ts';

const repeat = Number(process.env.BENCH_REPEAT ?? 3);
const ch = createClient({
  ...benchClickHouse,
  database: process.env.BENCH_DATABASE ?? 'rls_bench',
});
const log = (message: string) => process.stdout.write(`[statements] ${message}\n`);

const cpuMicros = async () => {
  const result = await ch.query({
    query: `SELECT sum(value) AS us FROM system.events
            WHERE event IN ('UserTimeMicroseconds', 'SystemTimeMicroseconds')`,
    format: 'JSONEachRow',
  });
  return Number((await result.json<{ us: string }>())[0]!.us);
};

/** The server's own wall time of one statement, in ms (its X-ClickHouse-Summary). */
async function serverMs(client: ClickHouseClient, query: string, params: Record<string, unknown>) {
  const result = await client.query({ query, query_params: params, format: 'JSON' });
  await result.json();
  const summary = result.response_headers['x-clickhouse-summary'];
  const elapsed = JSON.parse(String(summary ?? '{}')) as { elapsed_ns?: string };
  return Number(elapsed.elapsed_ns ?? NaN) / 1e6;
}

const periods: Quarter[] = [quarterOf(new Date())];
while (periods.length < 8) periods.push(previousQuarter(periods.at(-1)!));
const dar = cityLocation('dar_es_salaam')!;
const dLat = dar.radius_km / 111.2;
const dLng = dar.radius_km / (111.2 * Math.cos((dar.latitude * Math.PI) / 180));
const darBox = {
  west: dar.longitude - dLng,
  south: dar.latitude - dLat,
  east: dar.longitude + dLng,
  north: dar.latitude + dLat,
};
const darCovering = parentsForBounds(darBox);

const scopes = propertyTypes.flatMap((type) =>
  periods.map((p) => ({
    isTest: false,
    city: 'dar_es_salaam' as const,
    type,
    quarterStart: quarterStart(p),
    previousStart: quarterStart(previousQuarter(p)),
  })),
);
const heatmapScopes = [undefined, ...propertyTypes].flatMap((type) =>
  periods.slice(0, 4).map((p) => ({
    isTest: false,
    type,
    quarterStart: quarterStart(p),
    parentResolution: darCovering.resolution,
    parents: darCovering.parents.map((parent) => BigInt(`0x${parent}`)),
  })),
);

const statements: [string, NamedQuery<any, any>, Record<string, unknown>[]][] = [
  ['SELECT 1 (floor)', { sql: 'SELECT 1', queryParams: () => ({}) } as never, [{}]],
  ['pricing: prepared summaries and stats (every answer)', pricingSummaryStatement, scopes],
  ['pricing: prices at request time (a group changed since)', pricingPricesStatement, scopes],
  ['heatmap: market totals', marketTotals, scopes],
  [
    `heatmap: cells of the Dar es Salaam box (${darCovering.parents.length} parents)`,
    cellStats,
    heatmapScopes,
  ],
];

for (const [name, statement, jobs] of statements) {
  const calls = jobs.map((job) => ({
    query: statement.sql,
    params: statement.queryParams(job),
  }));
  for (const call of calls.slice(0, 4)) await serverMs(ch, call.query, call.params); // warm-up
  const walls: number[] = [];
  const before = await cpuMicros();
  const floor = await cpuMicros(); // one system.events read, subtracted below
  for (let pass = 0; pass < repeat; pass++) {
    for (const call of calls) walls.push(await serverMs(ch, call.query, call.params));
  }
  const after = await cpuMicros();
  const n = walls.length;
  const cpuPerCall = (after - floor - (floor - before)) / n / 1000;
  walls.sort((a, b) => a - b);
  const at = (p: number) => walls[Math.min(n - 1, Math.floor(p * n))]!.toFixed(1);
  log(
    `${name.padEnd(58)} n=${String(n).padStart(4)}  CPU ${cpuPerCall.toFixed(2).padStart(6)} ms/call  ` +
      `server wall p50 ${at(0.5).padStart(5)} p99 ${at(0.99).padStart(5)} ms`,
  );
}
await ch.close();
