// npm run bench:soak — a long run at a steady rate through the whole stack: posts 100-listing
// requests at SOAK_RATE listings/s (default 5,000) for SOAK_MINUTES (default 20), samples the
// ClickHouse server's resident memory, the stream worker's memory and the stored count every 30 s,
// then waits for every accepted listing and checks that each is stored exactly once and that the
// ClickHouse server is the same process as at the start (no restart).
//
// Runs against the stack of the environment (npm start's by default; RLS_PORT_BASE / RLS_STATE_DIR
// select another). Starts its own gateway (BENCH_PORT, default 28192) and one stream worker unless
// BENCH_BASE_URL points at running services.
import { queryRows } from '../common/clients/clickhouse.ts';
import { workerRegistry } from '../common/worker-registry.ts';
import { readSettings } from '../infra/local/settings.mjs';
import { componentProcesses, residentMemory, startTicks, type TrackedProcess } from './process-stats.ts';
import { benchEnv, startBenchStack } from './support.ts';
import { nextListingsBody } from './listing-bodies.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const minutes = Number(process.env.SOAK_MINUTES ?? 20);
const rate = Number(process.env.SOAK_RATE ?? 5_000);
const port = Number(process.env.BENCH_PORT ?? 28192);
const maxInFlight = 64;
const env = benchEnv;
const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' });
const log = (message: string) => process.stdout.write(`[soak] ${message}\n`);

/** Resident MB of processes (ClickHouse: the launcher and the server it runs). */
const residentMb = (processes: TrackedProcess[]) =>
  Math.round(processes.reduce((kb, p) => kb + (residentMemory(p.pid)?.rssKb ?? 0), 0) / 1024);
/** Which processes these are: a restarted server has another pid or start time. */
const identity = (processes: TrackedProcess[]) =>
  processes.map((p) => `${p.pid}@${startTicks(p.pid)}`).join(',');
const clickhouseProcesses = () => componentProcesses(settings.stateDir, 'clickhouse');

const body = () => nextListingsBody('Soak');

type Stack = Awaited<ReturnType<typeof startBenchStack>>;
/** What the posting loop counts and the sampler reports. */
interface Counts {
  accepted: number;
  refused: number;
  inFlight: number;
  /** Requests sent more than a second after they were due. */
  behind: number;
}
interface Sample {
  minute: number;
  server: number;
  worker: number;
  stored: number;
}

async function main() {
  const stack = await startBenchStack('bench-soak', port);
  const storedCount = storedCounter(stack);
  const serverAtStart = clickhouseProcesses();
  log(`ClickHouse ${identity(serverAtStart)}, ${residentMb(serverAtStart)} MB resident at the start`);
  log(`posting ${rate} listings/s for ${minutes} min (${rate / 100} requests/s of 100 listings)`);

  const counts: Counts = { accepted: 0, refused: 0, inFlight: 0, behind: 0 };
  const samples: Sample[] = [];
  const t0 = Date.now();
  const sampler = startSampler(stack, storedCount, counts, t0, samples);
  await postAtRate(stack, counts, t0, t0 + minutes * 60_000);
  const postSeconds = (Date.now() - t0) / 1000;
  log(
    `posting done: ${counts.accepted} accepted in ${postSeconds.toFixed(0)} s (${(counts.accepted / postSeconds).toFixed(0)}/s)`,
  );

  const drainStart = Date.now();
  while ((await storedCount()) < counts.accepted && Date.now() - drainStart < 300_000) await sleep(500);
  clearInterval(sampler);
  await reportStored(stack, counts.accepted, drainStart);
  reportMemory(samples, serverAtStart);
  await stack.close();
}

/** How many listings of the benchmark's account are stored. */
function storedCounter({ clickhouse, key }: Stack): () => Promise<number> {
  return async () =>
    Number(
      (
        await queryRows<{ c: string }>(
          clickhouse,
          'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
          { account: key.account_id },
        )
      )[0]?.c ?? 0,
    );
}

/** Every 30 s: ClickHouse's and the worker's resident memory and the stored count, logged and kept. */
function startSampler(
  { redis }: Stack,
  storedCount: () => Promise<number>,
  counts: Counts,
  t0: number,
  samples: Sample[],
): NodeJS.Timeout {
  return setInterval(() => {
    void (async () => {
      const server = residentMb(clickhouseProcesses());
      const beats = await workerRegistry(redis, env.REDIS_KEY_PREFIX).live();
      const worker = Math.max(...beats.map((beat) => residentMb([{ name: 'worker', pid: beat.pid }])), 0);
      const stored = await storedCount();
      const minute = (Date.now() - t0) / 60_000;
      samples.push({ minute, server, worker, stored });
      log(
        `${minute.toFixed(1)} min: accepted ${counts.accepted}, stored ${stored} (behind ${counts.accepted - stored}), ` +
          `refused ${counts.refused}, ClickHouse ${server} MB, worker ${worker} MB, requests late ${counts.behind}`,
      );
    })().catch((error: unknown) => log(`sample failed: ${String(error)}`));
  }, 30_000);
}

/** Posts 100-listing requests at `rate` listings/s until `end`, at most maxInFlight at once. */
async function postAtRate({ baseUrl, key }: Stack, counts: Counts, t0: number, end: number): Promise<void> {
  const post = async () => {
    counts.inFlight++;
    try {
      const response = await fetch(`${baseUrl}/api/v1/listings/bulk`, {
        method: 'POST',
        headers: { 'X-API-Key': key.key, 'Content-Type': 'application/json' },
        body: body(),
      });
      const json = (await response.json()) as { summary?: { succeeded: number } };
      if (response.status === 201) counts.accepted += json.summary!.succeeded;
      else counts.refused++;
    } catch {
      counts.refused++;
    } finally {
      counts.inFlight--;
    }
  };
  const interval = 100_000 / rate; // ms between 100-listing requests
  const inflight = new Set<Promise<void>>();
  for (let i = 0; ; i++) {
    const due = t0 + i * interval;
    if (due >= end) break;
    if (due > Date.now()) await sleep(due - Date.now());
    else if (Date.now() - due > 1_000) counts.behind++; // more than a second late: the stack can't keep up
    while (counts.inFlight >= maxInFlight) await sleep(1);
    const request = post();
    inflight.add(request);
    void request.finally(() => inflight.delete(request));
  }
  await Promise.all(inflight);
}

/** Whether every accepted listing is stored exactly once, and how long after posting the last one was. */
async function reportStored({ clickhouse, key }: Stack, accepted: number, drainStart: number): Promise<void> {
  const [check] = await queryRows<{ rows: string; ids: string }>(
    clickhouse,
    'SELECT count() AS rows, uniqExact(listing_id) AS ids FROM listings WHERE account_id = {account:String}',
    { account: key.account_id },
  );
  log(
    `stored ${check!.rows} rows for ${check!.ids} distinct ids of ${accepted} accepted ` +
      `(${Number(check!.rows) === accepted && check!.rows === check!.ids ? 'nothing lost, nothing twice' : 'MISMATCH'}), ` +
      `last stored ${((Date.now() - drainStart) / 1000).toFixed(1)} s after posting ended`,
  );
}

/** ClickHouse's (and whether it restarted) and the worker's resident memory over the two halves. */
function reportMemory(samples: Sample[], serverAtStart: TrackedProcess[]): void {
  const serverAtEnd = clickhouseProcesses();
  const half = Math.floor(samples.length / 2);
  const avg = (list: number[]) => Math.round(list.reduce((a, b) => a + b, 0) / Math.max(1, list.length));
  log(
    `ClickHouse ${identity(serverAtEnd) === identity(serverAtStart) ? 'same process throughout (no restart)' : 'RESTARTED'}; ` +
      `resident MB first half avg ${avg(samples.slice(0, half).map((s) => s.server))}, second half avg ` +
      `${avg(samples.slice(half).map((s) => s.server))}, max ${Math.max(...samples.map((s) => s.server))}, end ${residentMb(serverAtEnd)}`,
  );
  log(
    `worker resident MB first half avg ${avg(samples.slice(0, half).map((s) => s.worker))}, second half avg ` +
      `${avg(samples.slice(half).map((s) => s.worker))}, max ${Math.max(...samples.map((s) => s.worker))}`,
  );
}

await main();
