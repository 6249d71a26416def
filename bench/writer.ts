// npm run bench:writer — rows/s of the stream's batched ClickHouse writer alone: BENCH_ROWS (200,000)
// enriched listing rows, built by the stream's own listingRow(), written through the writer in
// inserts of SINK_MAX_ROWS (10,000) into `listings` of a scratch database (BENCH_DATABASE,
// default rls_writer_bench, migrated like the service's, so its materialized views run too), with
// the insert deduplication token as in production. Wall clock from the first write to the last
// acknowledged insert; the scratch database is dropped at the end.
import { createClickHouse } from '../common/clients/clickhouse.ts';
import { createLogger } from '../common/logger.ts';
import { listingsTable } from '../common/warehouse/listings.ts';
import { migrate } from '../infra/clickhouse/migrate.ts';
import { createClickHouseWriter } from '../stream/sink/clickhouse-writer.ts';
import { benchClickHouse } from './clickhouse-server.ts';
import { benchListingRows } from './listing-rows.ts';

const database = process.env.BENCH_DATABASE ?? 'rls_writer_bench';
const rows = Number(process.env.BENCH_ROWS ?? 200_000);
const batch = Number(process.env.SINK_MAX_ROWS ?? 10_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

await migrate({ ...benchClickHouse, database, log: () => undefined });
const clickhouse = createClickHouse({ ...benchClickHouse, database });
const account = `writer-bench-${Date.now().toString(36)}`;

const rowsOf = (round: number) =>
  benchListingRows(rows, {
    account,
    topic: 'writer-bench',
    firstOffset: round * rows,
    title: `Writer bench ${round}`,
  });

try {
  for (let round = 1; round <= rounds; round++) {
    const writer = createClickHouseWriter(clickhouse, {
      table: listingsTable,
      maxRows: batch,
      maxDelayMs: 50,
      logger: createLogger('error'),
    });
    const prepared = rowsOf(round);
    const t0 = performance.now();
    const writes = [];
    for (let i = 0; i < prepared.length; i += batch)
      writes.push(writer.write(prepared.slice(i, i + batch), null));
    const results = await Promise.all(writes);
    const seconds = (performance.now() - t0) / 1000;
    await writer.drain();
    const refused = results.reduce((n, r) => n + r.rejected.length, 0);
    console.log(
      `[bench] round ${round}: ${rows} listing rows in ${seconds.toFixed(2)} s = ${Math.round(rows / seconds)} rows/s ` +
        `(${batch}-row inserts with the dedup token, materialized views included; refused ${refused})`,
    );
  }
} finally {
  await clickhouse.command({
    query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
    query_params: { db: database },
  });
  await clickhouse.close();
}
