// npm run bench:writer-formats — ClickHouse's own CPU per stored listing row by insert format and
// insert size, the variants alternating in one run (same load, same store). Rows are the stream's
// (listingRow()), inserted into `listings` of a scratch database migrated like the service's, so
// every materialized view runs, each insert with its deduplication token as the writer sends it.
// After each variant's inserts the run waits until ClickHouse has no merge running (at most
// BENCH_SETTLE_MS), so the CPU counted includes the merges its parts caused. The CPU is that of the
// stack's ClickHouse server process (/proc): run it against `npm run stack -- up` with nothing else
// using that server.
//
// Knobs: BENCH_ROWS per variant and round (50,000), BENCH_ROUNDS (3), BENCH_SIZES (1000,10000),
// BENCH_FORMATS (JSONEachRow,JSONCompactEachRow), BENCH_DATABASE (rls_writer_formats).
import type { ClickHouseClient } from '@clickhouse/client';
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { listingsTable } from '../common/warehouse/listings.ts';
import { columnList } from '../common/warehouse/table.ts';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { insertDedupToken } from '../stream/sink/insert-token.ts';
import { compactRows, type InsertFormat } from '../stream/sink/insert-format.ts';
import { benchClickHouse } from './clickhouse-server.ts';
import { benchListingRows } from './listing-rows.ts';
import { cpuSnapshot, stackProcesses } from './process-stats.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const database = process.env.BENCH_DATABASE ?? 'rls_writer_formats';
const rowsPerVariant = Number(process.env.BENCH_ROWS ?? 50_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const sizes = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const formats = (process.env.BENCH_FORMATS ?? 'JSONEachRow,JSONCompactEachRow').split(',') as InsertFormat[];
const settleMs = Number(process.env.BENCH_SETTLE_MS ?? 20_000);
const server = stackProcesses().filter((p) => p.name.startsWith('clickhouse'));
const columns = columnList(listingsTable);
let offset = 0;

const cpuOfServer = () => [...cpuSnapshot(server).values()].reduce((a, b) => a + b, 0) / 100;

async function mergesRunning(client: ClickHouseClient): Promise<number> {
  const result = await client.query({
    query: 'SELECT count() AS n FROM system.merges',
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ n: string }>();
  return Number(row?.n ?? 0);
}

async function run(client: ClickHouseClient, format: InsertFormat, size: number) {
  const rows = benchListingRows(rowsPerVariant, {
    account: 'formats-bench',
    topic: 'formats-bench',
    firstOffset: offset,
    title: 'Formats bench',
  });
  offset += rowsPerVariant;
  const before = cpuOfServer();
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += size) {
    const chunk = rows.slice(i, i + size);
    await client.insert({
      table: listingsTable.name,
      values: (format === 'JSONCompactEachRow' ? compactRows(chunk, columns) : chunk) as unknown[],
      format,
      columns,
      clickhouse_settings: {
        ...({ deduplicate_insert: 'enable' } as object),
        insert_deduplication_token: insertDedupToken(listingsTable.name, chunk),
      },
    });
  }
  const insertCpu = cpuOfServer() - before;
  const insertSeconds = (performance.now() - t0) / 1000;
  for (let waited = 0; waited < settleMs; waited += 250) {
    await sleep(250);
    if ((await mergesRunning(client)) === 0) break;
  }
  const total = cpuOfServer() - before;
  return {
    insertMicros: (insertCpu * 1e6) / rows.length,
    totalMicros: (total * 1e6) / rows.length,
    insertSeconds,
  };
}

await migrate({ ...benchClickHouse, database, log: () => undefined });
const clickhouse = createClickHouse({ ...benchClickHouse, database });
try {
  const results = new Map<string, { insert: number[]; total: number[] }>();
  for (let round = 1; round <= rounds; round++) {
    const variants = formats.flatMap((format) => sizes.map((size) => ({ format, size })));
    if (round % 2 === 0) variants.reverse();
    for (const { format, size } of variants) {
      const r = await run(clickhouse, format, size);
      const key = `${format} ${size}`;
      const entry = results.get(key) ?? { insert: [], total: [] };
      entry.insert.push(r.insertMicros);
      entry.total.push(r.totalMicros);
      results.set(key, entry);
      console.log(
        `round ${round}: ${key.padEnd(24)} insert ${r.insertMicros.toFixed(1)} µs/row, with merges ${r.totalMicros.toFixed(1)} µs/row (${(rowsPerVariant / r.insertSeconds).toFixed(0)} rows/s)`,
      );
    }
  }
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  console.log('ClickHouse server CPU per listing row (µs), over the rounds:');
  for (const [key, { insert, total }] of results)
    console.log(`  ${key.padEnd(24)} insert ${range(insert)}, with merges ${range(total)}`);
} finally {
  await clickhouse.command({
    query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
    query_params: { db: database },
  });
  await clickhouse.close();
}
