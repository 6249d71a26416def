// bench:stream's load generator and freshness figures, shared by the pipelines it measures (ours and
// the peer of bench/peer/): `post` sends one 100-listing request and reports what was accepted, the
// generator drives it at full load or at a paced rate, and freshness is 201 → stored per request.
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './percentile.ts';

/** One request's answer: its id and listings accepted (0 and no id when refused). */
export type PostResult = { id?: string; accepted: number };

/** A pipeline's entry point under load, recording when each accepted request got its 201. */
export function loadTarget(post: () => Promise<PostResult>) {
  const posted = new Map<string, number>(); // request id → time of the 201
  return {
    posted,
    async post(): Promise<number> {
      const { id, accepted } = await post().catch(() => ({ id: undefined, accepted: 0 }));
      if (id) posted.set(id, Date.now());
      return accepted;
    },
  };
}

/** `concurrency` clients posting back to back for `seconds`; the listings accepted and the seconds taken. */
export async function saturate(post: () => Promise<number>, seconds: number, concurrency: number) {
  const t0 = Date.now();
  let accepted = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() - t0 < seconds * 1000) {
        // Not `accepted += await post()`: that reads `accepted` before the await and loses the
        // other clients' additions made meanwhile.
        const created = await post();
        accepted += created;
      }
    }),
  );
  return { accepted, apiSeconds: (Date.now() - t0) / 1000 };
}

/** Requests of 100 listings started at `listingsPerSecond` for `seconds`, whatever the answers' pace; the listings accepted. */
export async function paced(post: () => Promise<number>, seconds: number, listingsPerSecond: number) {
  const requestsPerSecond = listingsPerSecond / 100;
  const t1 = Date.now();
  const inflight: Promise<number>[] = [];
  for (let i = 0; Date.now() - t1 < seconds * 1000; i++) {
    const due = t1 + (i * 1000) / requestsPerSecond;
    if (due > Date.now()) await sleep(due - Date.now());
    inflight.push(post());
  }
  return (await Promise.all(inflight)).reduce((a, b) => a + b, 0);
}

/** Waits until `storedCount()` reaches `accepted`; the seconds since `since` when it did. */
export async function drained(
  storedCount: () => Promise<number>,
  accepted: number,
  since: number,
  limitS: number,
) {
  while ((await storedCount()) < accepted) {
    if (Date.now() - since > limitS * 1000) throw new Error(`listings not stored within ${limitS} s`);
    await sleep(100);
  }
  return (Date.now() - since) / 1000;
}

export type Freshness = { p50: number; p95: number; max: number; completed: number; posted: number };

/**
 * Prints p50/p95/max of 201 → stored over the requests of `posted` whose completion time is in
 * `completed`, and p95 by 5 s of posting (a backlog shows as freshness growing over the phase).
 */
export function printFreshness(
  when: string,
  posted: Map<string, number>,
  completed: Map<string, number>,
): Freshness {
  const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
  const freshness = ascending([...completed].map(([id, at]) => at - posted.get(id)!));
  const figures = {
    p50: percentile(freshness, 50),
    p95: percentile(freshness, 95),
    max: freshness.at(-1) ?? NaN,
    completed: completed.size,
    posted: posted.size,
  };
  console.log(
    `freshness ${when} (${completed.size}/${posted.size} batches completed): ` +
      `p50 ${figures.p50} ms, p95 ${figures.p95} ms, max ${figures.max} ms`,
  );
  const start = Math.min(...posted.values());
  const windows: number[][] = [];
  for (const [id, at] of completed) {
    const posted201 = posted.get(id)!;
    (windows[Math.floor((posted201 - start) / 5_000)] ??= []).push(at - posted201);
  }
  const p95 = (values: number[]) => percentile(ascending(values), 95);
  console.log(`  p95 by 5 s of posting: ${windows.map((w) => (w.length ? p95(w) : '-')).join(', ')} ms`);
  return figures;
}

/** The rates the paced search tries, as fractions of the pipeline's full-load stored rate, ascending. */
export const SEARCH_FRACTIONS = [0.3, 0.45, 0.6, 0.75, 0.9, 1.05];

/**
 * The highest of the search's rates at which `trial` (a paced phase at that rate, its freshness)
 * stored every request with freshness p95 ≤ `limitMs`, trying them in ascending order until one
 * fails; undefined when the lowest already fails.
 */
export async function highestPacedRate(
  trial: (listingsPerSecond: number) => Promise<Freshness>,
  storedPerSecond: number,
  limitMs = 1_000,
): Promise<number | undefined> {
  let best: number | undefined;
  for (const fraction of SEARCH_FRACTIONS) {
    const rate = Math.round(storedPerSecond * fraction);
    const freshness = await trial(rate);
    if (freshness.completed < freshness.posted || !(freshness.p95 <= limitMs)) break;
    best = rate;
  }
  console.log(
    best === undefined
      ? `no paced rate tried kept freshness p95 ≤ ${limitMs} ms`
      : `highest paced rate tried with freshness p95 ≤ ${limitMs} ms: ${best} listings/s`,
  );
  return best;
}

/** A paced phase's load: listings/s asked for, accepted (÷ seconds posting) and stored (÷ seconds until all stored). */
export type PacedLoad = {
  listingsPerSecond: number;
  accepted: number;
  acceptedPerSecond: number;
  storedPerSecond: number;
};

/**
 * `paced` at `listingsPerSecond`, then waits (a minute at most) until `storedCount()` reaches
 * `storedBefore` plus what it accepted; a backlog left has stored/s NaN and shows in its freshness.
 */
export async function pacedAndDrained(
  post: () => Promise<number>,
  storedCount: () => Promise<number>,
  {
    storedBefore,
    seconds,
    listingsPerSecond,
  }: { storedBefore: number; seconds: number; listingsPerSecond: number },
): Promise<PacedLoad> {
  const t1 = Date.now();
  const accepted = await paced(post, seconds, listingsPerSecond);
  const postedSeconds = (Date.now() - t1) / 1000;
  const drainedSeconds = await drained(storedCount, storedBefore + accepted, t1, seconds + 60).catch(
    () => NaN,
  );
  return {
    listingsPerSecond,
    accepted,
    acceptedPerSecond: accepted / postedSeconds,
    storedPerSecond: accepted / drainedSeconds,
  };
}
