// npm run bench:guarantees — what each guarantee costs per stored listing: our pipeline at full
// load once with everything, then once without each guarantee, in the same invocation on the same
// stack, and a table of CPU µs per stored listing (load + drain, every process but the load
// generator) and stored listings/s with and without each (docs/performance.md, "What each
// guarantee costs").
//
// How each is turned off: the services are started as a benchmark build (RLS_BENCH_BUILD=1, which
// production refuses: common/bench-build.ts) and told to skip duplicate detection, owners or covered
// sends (RLS_BENCH_WITHOUT); without image checks the image process is not started; without views
// and aggregates the materialized views fed by `listings` are detached for that run (ATTACHed again
// after it; a run killed meanwhile leaves them detached until ClickHouse restarts); without
// idempotency the load generator sends no Idempotency-Key (with everything, each request has one).
//
// Runs against the stack of the environment, like bench:stream, which it must have to itself.
// Knobs: BENCH_SECONDS (15), BENCH_CONCURRENCY (8), BENCH_PORT (28191), BENCH_WITHOUT (the
// guarantees to measure, comma-separated; default all). The last line is the figures as JSON
// (`BENCH_GUARANTEES {…}`), for collecting runs.
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from '../common/clients/clickhouse.ts';
import { GUARANTEES, guaranteeTable, selectedGuarantees, type RunFigures } from './guarantee-cost.ts';
import { fullLoad, startOurs } from './stream-ours.ts';
import { benchEnv } from './support.ts';

/** The materialized views fed by `listings` of the bench's database, as database and name. */
async function listingsViews(clickhouse: ClickHouseClient) {
  const [row] = await queryRows<{ databases: string[]; tables: string[] }>(
    clickhouse,
    `SELECT dependencies_database AS databases, dependencies_table AS tables
     FROM system.tables WHERE database = {db:String} AND name = 'listings'`,
    { db: benchEnv.CLICKHOUSE_DATABASE },
  );
  return (row?.tables ?? []).map((table, i) => ({ database: row!.databases[i]!, table }));
}

/** DETACH (or ATTACH) each view; the names are ClickHouse's own, passed as identifiers. */
async function setViews(
  clickhouse: ClickHouseClient,
  views: { database: string; table: string }[],
  attach: boolean,
) {
  for (const { database, table } of views)
    await clickhouse.command({
      query: `${attach ? 'ATTACH' : 'DETACH'} TABLE {db:Identifier}.{table:Identifier}`,
      query_params: { db: database, table },
    });
}

/** One run of our pipeline at full load with `guarantee` left out (none: everything). */
async function measureRun(
  guarantee: (typeof GUARANTEES)[number] | undefined,
  { seconds, concurrency, port }: { seconds: number; concurrency: number; port: number },
): Promise<RunFigures> {
  console.log(`\n— ${guarantee ? `without ${guarantee.label}` : 'with every guarantee'}`);
  const ours = await startOurs({
    name: `bench-guarantees-${guarantee?.name ?? 'all'}`,
    port,
    serviceEnv: {
      RLS_BENCH_BUILD: '1',
      ...(guarantee && 'service' in guarantee ? { RLS_BENCH_WITHOUT: guarantee.service } : {}),
    },
    idempotencyKeys: true,
    ...(guarantee && 'options' in guarantee ? guarantee.options : {}),
  });
  // Detached after the services started and attached before they stop: nothing of them sees the
  // warehouse without its views but the inserts of this run.
  const views = guarantee && 'detachViews' in guarantee ? await listingsViews(ours.clickhouse) : [];
  try {
    if (views.length) console.log(`detaching ${views.map((v) => v.table).join(', ')}`);
    await setViews(ours.clickhouse, views, false);
    const full = await fullLoad(ours, { seconds, concurrency });
    return {
      cpuTotal: full.cpu.totalMicrosPerListing,
      cpuByProcess: full.cpu.byName,
      storedPerSecond: full.storedPerSecond,
    };
  } finally {
    await setViews(ours.clickhouse, views, true).catch((error: Error) =>
      console.error(`views left detached (they come back when ClickHouse restarts): ${error.message}`),
    );
    await ours.close();
  }
}

async function main() {
  const settings = {
    seconds: Number(process.env.BENCH_SECONDS ?? 15),
    concurrency: Number(process.env.BENCH_CONCURRENCY ?? 8),
    port: Number(process.env.BENCH_PORT ?? 28191),
  };
  const selected = selectedGuarantees(process.env.BENCH_WITHOUT);
  const everything = await measureRun(undefined, settings);
  const without = [];
  for (const guarantee of selected)
    without.push({
      label: guarantee.label,
      name: guarantee.name,
      figures: await measureRun(guarantee, settings),
    });
  console.log(`\n${guaranteeTable(everything, without).join('\n')}`);
  const round = (_: string, value: unknown) =>
    typeof value === 'number' ? (Number.isFinite(value) ? Math.round(value * 10) / 10 : null) : value;
  const byName = Object.fromEntries(without.map((w) => [w.name, w.figures]));
  console.log(`BENCH_GUARANTEES ${JSON.stringify({ everything, without: byName }, round)}`);
}

await main();
