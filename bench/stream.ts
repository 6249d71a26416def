// npm run bench:stream — end-to-end stream figures: sustained listings/s from API 201 to stored in
// ClickHouse (saturating phase), freshness p50/p95 (201 → batch completed, from the batch records)
// of that phase's batches (the black box's load) and again while posting at half of that rate, and
// the resident memory of the stream worker and of the image process.
//
// Runs against the stack of the environment (npm start's by default; RLS_PORT_BASE / RLS_STATE_DIR /
// *_URL select another). Starts its own gateway (BENCH_PORT, default 28191), one stream worker and
// one image process unless BENCH_BASE_URL points at running services; the worker it starts is
// sampled every second for where its memory is (worker-memory.ts).
// Knobs: BENCH_SECONDS (15), BENCH_CONCURRENCY (8), BENCH_PACED_RATE (listings/s of the paced phase).
import { percentile } from './percentile.ts';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { createKafka, createProducer } from '../common/clients/kafka.ts';
import type { Listing } from '../common/domain/listing.ts';
import { encodeListingBatch, listingMessageHeaders } from '../common/domain/messages.ts';
import { createLogger } from '../common/logger.ts';
import { topicName } from '../common/topics.ts';
import { queryRows } from '../common/clients/clickhouse.ts';
import { workerRegistry } from '../common/worker-registry.ts';
import { cpuSnapshot, printCpuTable, residentMemory, residentMemoryWithChildren } from './process-stats.ts';
import { benchEnv, LOAD_GENERATOR, startBenchStack } from './support.ts';
import { printMemoryBreakdown, startMemorySampler } from './worker-memory.ts';
import { nextListingsBody } from './listing-bodies.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const port = Number(process.env.BENCH_PORT ?? 28191);
const direct = Number(process.env.BENCH_DIRECT_MESSAGES ?? 200_000);
// Listings/s of the paced phase (default: half the saturated phase's rate). A fixed rate compares
// freshness between builds at the same load, which the saturated phase's own rate does not.
const pacedRate = process.env.BENCH_PACED_RATE ? Number(process.env.BENCH_PACED_RATE) : undefined;
// The worker started here listens for /metrics on a known port, for its memory samples and the size
// of its inserts (ClickHouse's CPU is mostly a cost per insert: docs/performance.md).
const workerMetricsPort = port + 10;
const env = benchEnv;

const body = () => nextListingsBody('Stream bench', { withAddress: true });
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main() {
  const {
    redis,
    clickhouse,
    baseUrl,
    processes,
    key: created,
    close,
  } = await startBenchStack('bench-stream', port, { STREAM_METRICS_PORT: String(workerMetricsPort) });
  console.log(`load average at the start: ${loadAverage()}`);
  const worker = process.env.BENCH_BASE_URL ? undefined : processes.find((p) => p.name === 'stream worker');
  const sampler = worker && startMemorySampler(worker.pid, `http://127.0.0.1:${workerMetricsPort}/metrics`);
  const account = created.account_id;
  const posted = new Map<string, number>(); // batch_id → time of the 201

  async function post(): Promise<number> {
    const response = await fetch(`${baseUrl}/api/v1/listings/bulk`, {
      method: 'POST',
      headers: { 'X-API-Key': created.key, 'Content-Type': 'application/json' },
      body: body(),
    });
    const json = (await response.json()) as { batch_id?: string; summary?: { succeeded: number } };
    if (response.status !== 201 || !json.batch_id) return 0;
    posted.set(json.batch_id, Date.now());
    return json.summary!.succeeded;
  }
  async function storedCount(): Promise<number> {
    const [row] = await queryRows<{ c: string }>(
      clickhouse,
      'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
      { account },
    );
    return Number(row?.c ?? 0);
  }

  /** p50/p95/max of 201 → batch completed over the batches in `posted`, printed. */
  async function printFreshness(when: string) {
    // Completion times from the batch records (completed_at, set once when the last listing is
    // stored). Not from the outbox: webhook delivery trims the events it has read.
    const completed = new Map<string, number>();
    for (let waited = 0; completed.size < posted.size && waited < 60_000; waited += 500) {
      const pending = [...posted.keys()].filter((id) => !completed.has(id));
      const pipeline = redis.pipeline();
      for (const id of pending) pipeline.hget(`${env.REDIS_KEY_PREFIX}batch:${id}`, 'completed_at');
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([, at], i) => {
        if (typeof at === 'string') completed.set(pending[i]!, Date.parse(at));
      });
      if (completed.size < posted.size) await sleep(500);
    }
    const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
    const p95 = (values: number[]) => percentile(ascending(values), 95);
    const freshness = ascending([...completed].map(([id, at]) => at - posted.get(id)!));
    console.log(
      `freshness ${when} (${completed.size}/${posted.size} batches completed): ` +
        `p50 ${percentile(freshness, 50)} ms, p95 ${percentile(freshness, 95)} ms, max ${freshness.at(-1)} ms`,
    );
    // A backlog shows as freshness growing over the phase; a steady delay as flat windows.
    const start = Math.min(...posted.values());
    const windows: number[][] = [];
    for (const [id, at] of completed) {
      const posted201 = posted.get(id)!;
      (windows[Math.floor((posted201 - start) / 5_000)] ??= []).push(at - posted201);
    }
    console.log(`  p95 by 5 s of posting: ${windows.map((w) => (w.length ? p95(w) : '-')).join(', ')} ms`);
  }

  // Phase 0: the stream alone. Publish `direct` listing messages straight to the topic (as the API
  // would), then time how long the worker needs to store them: the stream's own capacity.
  if (direct > 0) {
    sampler?.phase('stream alone');
    const producer = await createProducer(
      createKafka(env.KAFKA_BROKERS, 'bench-stream', createLogger('error')),
    );
    const topic = topicName(env.KAFKA_TOPIC_PREFIX, 'rls.listings.v1');
    const directAccount = `${account}-direct`;
    const template = JSON.parse(body()) as { listings: Record<string, unknown>[] };
    const before = Date.now();
    // The worker consumes while this process produces, so CPU is counted from the first send.
    const directCpuBefore = cpuSnapshot(processes);
    const directInsertsBefore = await listingInserts();
    // As the API publishes them: one v2 message per 100-listing request, 50 requests per send.
    for (let i = 0; i < direct; i += 5_000) {
      const messages = [];
      for (let j = i; j < Math.min(i + 5_000, direct); j += 100) {
        const head = {
          account_id: directAccount,
          batch_id: randomUUID(),
          is_test: false,
          received_at: new Date().toISOString(),
        };
        const items = template.listings
          .slice(0, Math.min(100, direct - j))
          .map((listing) => ({ listing_id: randomUUID(), listing: listing as Listing }));
        const headers = listingMessageHeaders(items);
        for (const value of encodeListingBatch(head, items))
          messages.push({ key: head.batch_id, value, headers });
      }
      await producer.send({ topic, messages });
    }
    const producedSeconds = (Date.now() - before) / 1000;
    const countDirect = async () =>
      Number(
        (
          await queryRows<{ c: string }>(
            clickhouse,
            'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
            { account: directAccount },
          )
        )[0]?.c ?? 0,
      );
    while ((await countDirect()) < direct) {
      if (Date.now() - before > 300_000) throw new Error('direct messages not stored within 300 s');
      await sleep(100);
    }
    const total = (Date.now() - before) / 1000;
    console.log(
      `stream alone: ${direct} messages produced in ${producedSeconds.toFixed(1)} s, all stored after ${total.toFixed(1)} s → ${(direct / total).toFixed(0)} listings/s`,
    );
    printCpuTable(processes, directCpuBefore, cpuSnapshot(processes), {
      listings: direct,
      seconds: total,
      notCounted: [LOAD_GENERATOR, 'gateway (API)'],
    });
    printInserts(directInsertsBefore, await listingInserts(), total);
    await producer.disconnect();
  }

  // Phase 1: saturate the API for `seconds`, then wait until everything accepted is stored.
  sampler?.phase('saturated');
  const t0 = Date.now();
  const cpuBefore = cpuSnapshot(processes);
  const insertsBefore = await listingInserts();
  const batchTimesBefore = await batchTimes();
  let accepted = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() - t0 < seconds * 1000) {
        // Not `accepted += await post()`: that reads `accepted` before the await and loses the
        // other workers' additions made meanwhile.
        const created = await post().catch(() => 0);
        accepted += created;
      }
    }),
  );
  const apiSeconds = (Date.now() - t0) / 1000;
  while ((await storedCount()) < accepted) {
    if (Date.now() - t0 > (seconds + 120) * 1000) throw new Error('listings not stored within 120 s');
    await sleep(100);
  }
  const e2eSeconds = (Date.now() - t0) / 1000;
  const cpuAfter = cpuSnapshot(processes);
  const sustained = accepted / e2eSeconds;
  console.log(
    `accepted ${accepted} listings in ${apiSeconds.toFixed(1)} s at the API (${(accepted / apiSeconds).toFixed(0)}/s)`,
  );
  console.log(
    `sustained end to end (201 → stored): ${sustained.toFixed(0)} listings/s (all stored after ${e2eSeconds.toFixed(1)} s)`,
  );
  const cpu = printCpuTable(processes, cpuBefore, cpuAfter, {
    listings: accepted,
    seconds: e2eSeconds,
    notCounted: [LOAD_GENERATOR],
  });
  printInserts(insertsBefore, await listingInserts(), e2eSeconds);
  printBatchTimes(batchTimesBefore, await batchTimes());
  console.log(
    `end to end: ${cpu.totalMicrosPerListing.toFixed(1)} µs of CPU per stored listing (goal ≤ 100 µs)`,
  );

  // The black box's freshness is taken under its full load: the batches of the saturated phase.
  await printFreshness(`under full load (${concurrency} in flight)`);

  // Phase 2: paced at half the sustained rate, or at BENCH_PACED_RATE.
  posted.clear();
  sampler?.phase('paced');
  const requestsPerSecond = (pacedRate ?? sustained / 2) / 100;
  const t1 = Date.now();
  const inflight: Promise<unknown>[] = [];
  for (let i = 0; Date.now() - t1 < seconds * 1000; i++) {
    const due = t1 + (i * 1000) / requestsPerSecond;
    if (due > Date.now()) await sleep(due - Date.now());
    inflight.push(post().catch(() => 0));
  }
  await Promise.all(inflight);
  await printFreshness(`at ${(requestsPerSecond * 100).toFixed(0)} listings/s`);

  if (sampler) printMemoryBreakdown('stream worker', await sampler.stop());
  console.log(`load average at the end: ${loadAverage()}`);
  // Resident memory of the stream workers and image processes (Linux /proc), by the pids they
  // report; an image process's decoder children counted with it.
  for (const beat of await workerRegistry(redis, env.REDIS_KEY_PREFIX).live()) {
    const name = `${beat.role === 'images' ? 'image process' : 'stream worker'} ${beat.worker_id}`;
    const memory = residentMemory(beat.pid);
    const withChildren = residentMemoryWithChildren(beat.pid);
    console.log(
      memory
        ? `${name}: ${memory.rssKb} kB resident (VmHWM ${memory.hwmKb} kB)` +
            (withChildren?.children
              ? `, ${withChildren.rssKb} kB with its ${withChildren.children} child process(es)`
              : '')
        : `${name}: not on this machine`,
    );
  }
  await close();
}

/** Inserts into `listings` and their rows so far, from the worker's writer histogram (null with BENCH_BASE_URL). */
async function listingInserts(): Promise<InsertTotals | null> {
  if (process.env.BENCH_BASE_URL) return null;
  const text = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
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

type InsertTotals = { inserts: number; rows: number; storedSeconds: number };

/** One histogram of the worker's /metrics, its series of the listings topic (with `outcome`, if given). */
type Histogram = { count: number; sum: number; buckets: [number, number][] };
async function listingsHistogram(name: string, outcome?: string): Promise<Histogram | null> {
  if (process.env.BENCH_BASE_URL) return null;
  const text = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
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

async function batchTimes() {
  return {
    wait: await listingsHistogram('stream_batch_wait_seconds'),
    store: await listingsHistogram('stream_batch_store_seconds', 'committed'),
  };
}

/** The listings batches' wait for the worker and time to stored and committed, between two readings. */
function printBatchTimes(
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

function printInserts(before: InsertTotals | null, after: InsertTotals | null, seconds: number) {
  if (!before || !after) return;
  const inserts = after.inserts - before.inserts;
  const rows = after.rows - before.rows;
  console.log(
    `inserts into listings: ${inserts} (${(inserts / seconds).toFixed(1)}/s), ${(rows / inserts).toFixed(0)} rows each on average, ` +
      `${((1000 * (after.storedSeconds - before.storedSeconds)) / inserts).toFixed(0)} ms each from flush to stored`,
  );
}

await main();
