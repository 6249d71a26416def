// Our pipeline under bench:stream's load (and bench:guarantees'): the services started on the
// environment's stack, the load generator's target (one bulk request of 100 listings), the count
// of what is stored, freshness from the batch records, and the full-load and paced phases.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { batchKeys } from '../common/batches.ts';
import { queryRows } from '../common/clients/clickhouse.ts';
import { nextListingsBody } from './listing-bodies.ts';
import { cpuSnapshot, printCpuTable } from './process-stats.ts';
import {
  drained,
  loadTarget,
  pacedAndDrained,
  printFreshness,
  saturate,
  type Freshness,
  type PacedLoad,
} from './stream-load.ts';
import { benchEnv, LOAD_GENERATOR, startBenchStack } from './support.ts';

export interface OursOptions {
  name: string;
  port: number;
  serviceEnv?: NodeJS.ProcessEnv;
  /** Start the image process (default true). */
  images?: boolean;
  /** Send each request with its own Idempotency-Key (default false, as bench:stream's load). */
  idempotencyKeys?: boolean;
}

/** Our services started, with what the phases need to load and read them. */
export async function startOurs({ name, port, serviceEnv = {}, images, idempotencyKeys }: OursOptions) {
  const stack = await startBenchStack(name, port, serviceEnv, { images });
  const { redis, clickhouse, baseUrl, key } = stack;
  const account = key.account_id;
  // Listings accepted so far, over every phase: what is stored once the pipeline has drained.
  let acceptedSoFar = 0;
  /** The load generator's target: one bulk request of 100 listings, its batch_id and listings accepted. */
  const target = () =>
    loadTarget(async () => {
      const response = await fetch(`${baseUrl}/api/v1/listings/bulk`, {
        method: 'POST',
        headers: {
          'X-API-Key': key.key,
          'Content-Type': 'application/json',
          ...(idempotencyKeys ? { 'Idempotency-Key': randomUUID() } : {}),
        },
        body: nextListingsBody('Stream bench', { withAddress: true }),
      });
      const json = (await response.json()) as { batch_id?: string; summary?: { succeeded: number } };
      if (response.status !== 201 || !json.batch_id) return { accepted: 0 };
      acceptedSoFar += json.summary!.succeeded;
      return { id: json.batch_id, accepted: json.summary!.succeeded };
    });
  async function storedCount(): Promise<number> {
    const [row] = await queryRows<{ c: string }>(
      clickhouse,
      'SELECT count() AS c FROM listings WHERE account_id = {account:String}',
      { account },
    );
    return Number(row?.c ?? 0);
  }
  /** p50/p95/max of 201 → batch completed over the batches of `posted`, printed. */
  async function freshness(when: string, posted: Map<string, number>): Promise<Freshness> {
    // Completion times from the batch records (completed_at, set once when the last listing is
    // stored). Not from the outbox: webhook delivery deletes the events it has fanned out. One
    // account's batches share its slot, so one pipeline on a cluster too.
    const completed = new Map<string, number>();
    for (let waited = 0; completed.size < posted.size && waited < 60_000; waited += 500) {
      const pending = [...posted.keys()].filter((id) => !completed.has(id));
      const pipeline = redis.pipeline();
      for (const id of pending)
        pipeline.hget(batchKeys(benchEnv.REDIS_KEY_PREFIX, account, id).record, 'completed_at');
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([, at], i) => {
        if (typeof at === 'string') completed.set(pending[i]!, Date.parse(at));
      });
      if (completed.size < posted.size) await sleep(500);
    }
    return printFreshness(when, posted, completed);
  }
  return { ...stack, account, target, storedCount, freshness, acceptedSoFar: () => acceptedSoFar };
}
export type Ours = Awaited<ReturnType<typeof startOurs>>;

/**
 * Saturates the API for `seconds` with `concurrency` clients, then waits until everything accepted
 * is stored; CPU per stored listing of each process over load + drain, printed and returned.
 */
export async function fullLoad(
  ours: Ours,
  { seconds, concurrency }: { seconds: number; concurrency: number },
) {
  const target = ours.target();
  const storedBefore = ours.acceptedSoFar();
  const t0 = Date.now();
  const cpuBefore = cpuSnapshot(ours.processes);
  const { accepted, apiSeconds } = await saturate(target.post, seconds, concurrency);
  const e2eSeconds = await drained(ours.storedCount, storedBefore + accepted, t0, seconds + 120);
  const cpuAfter = cpuSnapshot(ours.processes);
  console.log(
    `accepted ${accepted} listings in ${apiSeconds.toFixed(1)} s at the API (${(accepted / apiSeconds).toFixed(0)}/s)`,
  );
  console.log(
    `sustained end to end (201 → stored): ${(accepted / e2eSeconds).toFixed(0)} listings/s (all stored after ${e2eSeconds.toFixed(1)} s)`,
  );
  const cpu = printCpuTable(ours.processes, cpuBefore, cpuAfter, {
    listings: accepted,
    seconds: e2eSeconds,
    notCounted: [LOAD_GENERATOR],
  });
  return {
    posted: target.posted,
    accepted,
    apiSeconds,
    e2eSeconds,
    storedPerSecond: accepted / e2eSeconds,
    cpu,
  };
}

/** A paced phase at `listingsPerSecond` until all of it is stored, and its freshness. */
export async function pacedPhase(
  ours: Ours,
  seconds: number,
  listingsPerSecond: number,
): Promise<PacedLoad & Freshness> {
  const target = ours.target();
  const load = await pacedAndDrained(target.post, ours.storedCount, {
    storedBefore: ours.acceptedSoFar(),
    seconds,
    listingsPerSecond,
  });
  return {
    ...load,
    ...(await ours.freshness(`at ${listingsPerSecond.toFixed(0)} listings/s`, target.posted)),
  };
}
