// npm run bench:stream — end-to-end stream figures: sustained listings/s from API 201 to stored in
// ClickHouse (saturating phase), freshness p50/p95 (201 → batch completed, from the batch records)
// of that phase's batches (the black box's load) and again while posting at half of that rate, and
// the resident memory of the stream worker and of the image process. Then the same load and figures
// for a naive peer pipeline on the same Kafka and ClickHouse (bench/peer/), and both side by side.
//
// Runs against the stack of the environment (npm start's by default; RLS_PORT_BASE / RLS_STATE_DIR /
// *_URL select another). Starts its own gateway (BENCH_PORT, default 28191), one stream worker and
// one image process unless BENCH_BASE_URL points at running services; the worker it starts is
// sampled every second for where its memory is (worker-memory.ts).
// Knobs: BENCH_SECONDS (15), BENCH_CONCURRENCY (8), BENCH_PACED_RATE (listings/s of the paced phase),
// BENCH_PIPELINES (ours,peer: `ours` or `peer` runs one of them; the peer listens on BENCH_PORT + 20),
// BENCH_PACED_SEARCH=1 (each pipeline's highest paced rate with freshness p95 ≤ 1 s: up to six more
// phases each).
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { batchKeys } from '../common/batches.ts';
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
import { measurePeer } from './peer/run.ts';
import { sideBySide, type PipelineFigures } from './stream-compare.ts';
import { drained, highestPacedRate, loadTarget, paced, printFreshness, saturate } from './stream-load.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 15);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const port = Number(process.env.BENCH_PORT ?? 28191);
const direct = Number(process.env.BENCH_DIRECT_MESSAGES ?? 200_000);
// Listings/s of the paced phase (default: half the saturated phase's rate). A fixed rate compares
// freshness between builds at the same load, which the saturated phase's own rate does not.
const pacedRate = process.env.BENCH_PACED_RATE ? Number(process.env.BENCH_PACED_RATE) : undefined;
const pacedSearch = process.env.BENCH_PACED_SEARCH === '1';
// The worker started here listens for /metrics on a known port, for its memory samples and the size
// of its inserts (ClickHouse's CPU is mostly a cost per insert: docs/performance.md).
const workerMetricsPort = port + 10;
const env = benchEnv;
const pipelines = (process.env.BENCH_PIPELINES ?? 'ours,peer').split(',').map((p) => p.trim());
if (pipelines.some((p) => p !== 'ours' && p !== 'peer') || !pipelines.length)
  throw new Error(
    `BENCH_PIPELINES: a comma-separated list of ours and peer, not "${process.env.BENCH_PIPELINES}"`,
  );

const body = () => nextListingsBody('Stream bench', { withAddress: true });
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main() {
  const ours = pipelines.includes('ours') ? await measureOurs() : undefined;
  if (!pipelines.includes('peer')) return;
  console.log(`\nload average before the peer: ${loadAverage()}`);
  const peer = await measurePeer({
    seconds,
    concurrency,
    port: port + 20,
    pacedRate: ours?.paced?.listingsPerSecond ?? pacedRate,
    pacedSearch,
  });
  if (ours) console.log(`\n${sideBySide(ours, peer).join('\n')}`);
}

/** Our pipeline: the stream alone, then the API end to end at full load and paced. */
async function measureOurs(): Promise<PipelineFigures> {
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
  // The load generator's target: one bulk request of 100 listings, its batch_id and listings accepted.
  let target = ourTarget();
  function ourTarget() {
    return loadTarget(async () => {
      const response = await fetch(`${baseUrl}/api/v1/listings/bulk`, {
        method: 'POST',
        headers: { 'X-API-Key': created.key, 'Content-Type': 'application/json' },
        body: body(),
      });
      const json = (await response.json()) as { batch_id?: string; summary?: { succeeded: number } };
      if (response.status !== 201 || !json.batch_id) return { accepted: 0 };
      return { id: json.batch_id, accepted: json.summary!.succeeded };
    });
  }
  async function storedCount(): Promise<number> {
    const [row] = await queryRows<{ c: string }>(
      clickhouse,
      'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
      { account },
    );
    return Number(row?.c ?? 0);
  }

  /** p50/p95/max of 201 → batch completed over the batches posted to `target`, printed. */
  async function printOurFreshness(when: string) {
    const { posted } = target;
    // Completion times from the batch records (completed_at, set once when the last listing is
    // stored). Not from the outbox: webhook delivery deletes the events it has fanned out. One
    // account's batches share its slot, so one pipeline on a cluster too.
    const completed = new Map<string, number>();
    for (let waited = 0; completed.size < posted.size && waited < 60_000; waited += 500) {
      const pending = [...posted.keys()].filter((id) => !completed.has(id));
      const pipeline = redis.pipeline();
      for (const id of pending)
        pipeline.hget(batchKeys(env.REDIS_KEY_PREFIX, account, id).record, 'completed_at');
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([, at], i) => {
        if (typeof at === 'string') completed.set(pending[i]!, Date.parse(at));
      });
      if (completed.size < posted.size) await sleep(500);
    }
    return printFreshness(when, posted, completed);
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
  const { accepted, apiSeconds } = await saturate(target.post, seconds, concurrency);
  const e2eSeconds = await drained(storedCount, accepted, t0, seconds + 120);
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
  const fullLoad = await printOurFreshness(`under full load (${concurrency} in flight)`);

  // Phase 2: paced at half the sustained rate, or at BENCH_PACED_RATE.
  target = ourTarget();
  sampler?.phase('paced');
  const listingsPerSecond = pacedRate ?? sustained / 2;
  await paced(target.post, seconds, listingsPerSecond);
  const pacedFreshness = await printOurFreshness(`at ${listingsPerSecond.toFixed(0)} listings/s`);
  let highest: number | undefined;
  if (pacedSearch) {
    sampler?.phase('search');
    highest = await highestPacedRate(async (rate) => {
      target = ourTarget();
      await paced(target.post, seconds, rate);
      return printOurFreshness(`at ${rate} listings/s`);
    }, sustained);
  }

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
  return {
    acceptedPerSecond: accepted / apiSeconds,
    storedPerSecond: sustained,
    cpuByProcess: cpu.byName,
    cpuTotal: cpu.totalMicrosPerListing,
    fullLoad: { p50: fullLoad.p50, p95: fullLoad.p95 },
    paced: { listingsPerSecond, p50: pacedFreshness.p50, p95: pacedFreshness.p95 },
    ...(pacedSearch ? { highestPacedRate: highest ?? NaN } : {}),
  };
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
