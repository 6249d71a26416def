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
// phases each). The last line is the run's figures as JSON (`BENCH_SUMMARY {…}`), for collecting runs.
import os from 'node:os';
import { workerRegistry } from '../common/worker-registry.ts';
import { residentMemory, residentMemoryWithChildren } from './process-stats.ts';
import { benchEnv } from './support.ts';
import { printMemoryBreakdown, startMemorySampler } from './worker-memory.ts';
import { measurePeer } from './peer/run.ts';
import { pickPaced as pick, sideBySide, summaryLine, type PipelineFigures } from './stream-compare.ts';
import { streamAlone } from './stream-direct.ts';
import { highestPacedRate, type Freshness, type PacedLoad } from './stream-load.ts';
import { batchTimes, listingInserts, printBatchTimes, printInserts } from './stream-metrics.ts';
import { fullLoad, pacedPhase, startOurs, type Ours } from './stream-ours.ts';

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
const pipelines = (process.env.BENCH_PIPELINES ?? 'ours,peer').split(',').map((p) => p.trim());
if (pipelines.some((p) => p !== 'ours' && p !== 'peer') || !pipelines.length)
  throw new Error(
    `BENCH_PIPELINES: a comma-separated list of ours and peer, not "${process.env.BENCH_PIPELINES}"`,
  );

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const metricsUrl = process.env.BENCH_BASE_URL ? undefined : `http://127.0.0.1:${workerMetricsPort}/metrics`;

async function main() {
  const ours = pipelines.includes('ours') ? await measureOurs() : undefined;
  let peer: PipelineFigures | undefined;
  if (pipelines.includes('peer')) {
    console.log(`\nload average before the peer: ${loadAverage()}`);
    peer = await measurePeer({
      seconds,
      concurrency,
      port: port + 20,
      pacedRate: ours?.paced?.listingsPerSecond ?? pacedRate,
      pacedSearch,
    });
    if (ours) console.log(`\n${sideBySide(ours, peer).join('\n')}`);
  }
  console.log(summaryLine({ ours, peer }));
}

/** Our pipeline: the stream alone, then the API end to end at full load and paced. */
async function measureOurs(): Promise<PipelineFigures> {
  const ours = await startOurs({
    name: 'bench-stream',
    port,
    serviceEnv: { STREAM_METRICS_PORT: String(workerMetricsPort) },
  });
  console.log(`load average at the start: ${loadAverage()}`);
  const worker = ours.processes.find((p) => p.name === 'stream worker');
  const sampler = worker && metricsUrl ? startMemorySampler(worker.pid, metricsUrl) : undefined;
  if (direct > 0) {
    sampler?.phase('stream alone');
    await streamAlone(ours, direct, metricsUrl);
  }

  // Saturate the API for `seconds`, then wait until everything accepted is stored.
  sampler?.phase('saturated');
  const insertsBefore = await listingInserts(metricsUrl);
  const batchTimesBefore = await batchTimes(metricsUrl);
  const full = await fullLoad(ours, { seconds, concurrency });
  printInserts(insertsBefore, await listingInserts(metricsUrl), full.e2eSeconds);
  printBatchTimes(batchTimesBefore, await batchTimes(metricsUrl));
  console.log(
    `end to end: ${full.cpu.totalMicrosPerListing.toFixed(1)} µs of CPU per stored listing (goal ≤ 100 µs)`,
  );
  // The black box's freshness is taken under its full load: the batches of the saturated phase.
  const fullFreshness = await ours.freshness(`under full load (${concurrency} in flight)`, full.posted);

  // Paced at half the sustained rate, or at BENCH_PACED_RATE; then the search, if asked for.
  sampler?.phase('paced');
  const slow = await pacedPhase(ours, seconds, pacedRate ?? full.storedPerSecond / 2);
  const trials = new Map<number, PacedLoad & Freshness>();
  let highest: number | undefined;
  if (pacedSearch) {
    sampler?.phase('search');
    highest = await highestPacedRate(async (rate) => {
      trials.set(rate, await pacedPhase(ours, seconds, rate));
      return trials.get(rate)!;
    }, full.storedPerSecond);
  }

  if (sampler) printMemoryBreakdown('stream worker', await sampler.stop());
  await printResidentMemory(ours);
  await ours.close();
  const best = highest === undefined ? undefined : trials.get(highest);
  return {
    acceptedPerSecond: full.accepted / full.apiSeconds,
    storedPerSecond: full.storedPerSecond,
    cpuByProcess: full.cpu.byName,
    cpuTotal: full.cpu.totalMicrosPerListing,
    fullLoad: { p50: fullFreshness.p50, p95: fullFreshness.p95 },
    paced: { listingsPerSecond: slow.listingsPerSecond, p50: slow.p50, p95: slow.p95 },
    ...(pacedSearch ? { highestPacedRate: highest ?? NaN } : {}),
    ...(best ? { highestPaced: pick(best) } : {}),
  };
}

/**
 * Resident memory of the stream workers and image processes (Linux /proc), by the pids they report;
 * an image process's decoder children counted with it.
 */
async function printResidentMemory(ours: Ours) {
  console.log(`load average at the end: ${loadAverage()}`);
  for (const beat of await workerRegistry(ours.redis, benchEnv.REDIS_KEY_PREFIX).live()) {
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
}

await main();
