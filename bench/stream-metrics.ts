// What bench:stream reads of the stream worker it started, from its /metrics: the inserts into
// `listings` (ClickHouse's CPU is mostly a cost per insert: docs/performance.md) and the listings
// batches' wait and store times, between two readings. Every reader takes the worker's /metrics URL
// and answers null without one (BENCH_BASE_URL: no worker of its own).

export type InsertTotals = { inserts: number; rows: number; storedSeconds: number };

/** Inserts into `listings` and their rows so far, from the worker's writer histogram. */
export async function listingInserts(metricsUrl: string | undefined): Promise<InsertTotals | null> {
  if (!metricsUrl) return null;
  const text = await (await fetch(metricsUrl)).text();
  // No line before the writer's first insert: none so far.
  const value = (name: string) =>
    Number(new RegExp(`^${name}\\{table="listings"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const storedSeconds = Number(
    /^clickhouse_writer_flush_duration_seconds_sum\{table="listings",outcome="stored"\} (\S+)$/m.exec(
      text,
    )?.[1] ?? 0,
  );
  return {
    inserts: value('clickhouse_writer_flush_rows_count'),
    rows: value('clickhouse_writer_flush_rows_sum'),
    storedSeconds,
  };
}

export function printInserts(before: InsertTotals | null, after: InsertTotals | null, seconds: number) {
  if (!before || !after) return;
  const inserts = after.inserts - before.inserts;
  const rows = after.rows - before.rows;
  console.log(
    `inserts into listings: ${inserts} (${(inserts / seconds).toFixed(1)}/s), ${(rows / inserts).toFixed(0)} rows each on average, ` +
      `${((1000 * (after.storedSeconds - before.storedSeconds)) / inserts).toFixed(0)} ms each from flush to stored`,
  );
}

/** One histogram of the worker's /metrics, its series of the listings topic (with `outcome`, if given). */
type Histogram = { count: number; sum: number; buckets: [number, number][] };
async function listingsHistogram(
  metricsUrl: string | undefined,
  name: string,
  outcome?: string,
): Promise<Histogram | null> {
  if (!metricsUrl) return null;
  const text = await (await fetch(metricsUrl)).text();
  const histogram: Histogram = { count: 0, sum: 0, buckets: [] };
  for (const [, suffix, labelText, value] of text.matchAll(
    new RegExp(`^${name}_(bucket|sum|count)\\{([^}]*)\\} (\\S+)$`, 'gm'),
  )) {
    const labels = Object.fromEntries([...labelText!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!labels.topic?.endsWith('listings.v1') || (outcome && labels.outcome !== outcome)) continue;
    if (suffix === 'bucket')
      histogram.buckets.push([Number(labels.le === '+Inf' ? Infinity : labels.le), Number(value)]);
    else histogram[suffix as 'sum' | 'count'] = Number(value);
  }
  return histogram;
}

export async function batchTimes(metricsUrl: string | undefined) {
  return {
    wait: await listingsHistogram(metricsUrl, 'stream_batch_wait_seconds'),
    store: await listingsHistogram(metricsUrl, 'stream_batch_store_seconds', 'committed'),
  };
}

/** The listings batches' wait for the worker and time to stored and committed, between two readings. */
export function printBatchTimes(
  before: Awaited<ReturnType<typeof batchTimes>>,
  after: Awaited<ReturnType<typeof batchTimes>>,
) {
  const describe = (a: Histogram | null, b: Histogram | null) => {
    if (!a || !b || b.count === a.count) return 'none';
    const count = b.count - a.count;
    const p95 = b.buckets.find(
      ([le, n]) => n - (a.buckets.find(([l]) => l === le)?.[1] ?? 0) >= 0.95 * count,
    )?.[0];
    return `mean ${((1000 * (b.sum - a.sum)) / count).toFixed(0)} ms, p95 ≤ ${p95 === undefined ? '?' : (p95 * 1000).toFixed(0)} ms (${count} batches)`;
  };
  console.log(
    `listings batches: Kafka timestamp → handed to the handler ${describe(before.wait, after.wait)}; ` +
      `handed → stored and committed ${describe(before.store, after.store)}`,
  );
}
