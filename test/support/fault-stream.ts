// Helpers of the stream fault tests: extra stream workers, the worker registry, exactly-once checks.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { spawnService } from '../../infra/local/services.mjs';
import { workerRegistry } from '../../common/worker-registry.ts';
import { env, eventually, testRedis } from './api.ts';
import { rows, storedCounts } from './stream.ts';

export function spawnWorker(workerId: string, extra: Record<string, string> = {}): ChildProcess {
  return spawnService('stream', {
    ...process.env,
    STREAM_WORKER_ID: workerId,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    ...extra,
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Waits until `workerId` reports listings partitions of its own (it joined the group). */
export async function waitForPartitions(workerId: string, timeoutMs = 60_000): Promise<number[]> {
  const registry = workerRegistry(await testRedis(), env.REDIS_KEY_PREFIX);
  return eventually(
    async () => {
      const beat = (await registry.live()).find((b) => b.worker_id === workerId);
      const partitions = beat?.consumers.listings?.partitions ?? [];
      return partitions.length ? partitions : undefined;
    },
    timeoutMs,
    `${workerId} to be assigned partitions`,
  );
}

/** Total listings lag the live workers report (what /healthz sums up). */
export async function reportedLag(): Promise<number> {
  const registry = workerRegistry(await testRedis(), env.REDIS_KEY_PREFIX);
  let total = 0;
  for (const beat of await registry.live())
    for (const lag of Object.values(beat.consumers.listings?.lag ?? {})) total += lag;
  return total;
}

/** Every id stored exactly once (counted without FINAL), and listing_lookup agrees. */
export async function expectExactlyOnce(ids: string[], timeoutMs = 120_000): Promise<void> {
  const counts = await eventually(
    async () => {
      const c = await storedCounts(ids);
      return [...c.values()].every((n) => n >= 1) ? c : undefined;
    },
    timeoutMs,
    `${ids.length} listings stored`,
  );
  const wrong = [...counts].filter(([, n]) => n !== 1);
  expect(wrong, 'listings stored more than once').toEqual([]);
  // One insert commits the base table's part before its materialized views' parts (each view is
  // its own insert in the same query), so listing_lookup may trail `listings` for a moment.
  for (let i = 0; i < ids.length; i += 2_000) {
    const chunk = ids.slice(i, i + 2_000);
    const lookup = await eventually(
      async () => {
        const [r] = await rows<{ c: string; u: string }>(
          `SELECT count() AS c, uniqExact(listing_id) AS u FROM listing_lookup
           WHERE listing_id IN {ids:Array(UUID)}`,
          { ids: chunk },
        );
        return Number(r!.c) >= chunk.length ? r! : undefined;
      },
      30_000,
      'listing_lookup to hold every stored listing',
    );
    expect(Number(lookup.c), 'listing_lookup rows').toBe(chunk.length);
    expect(Number(lookup.u)).toBe(chunk.length);
  }
}

/** Aggregates kept by materialized views equal a recomputation from the base table. */
export async function expectAggregatesConsistent(): Promise<void> {
  await eventually(
    async () => {
      const [r] = await rows<{ base: string; lookup: string; dup: string }>(
        `SELECT (SELECT count() FROM listings) AS base, (SELECT count() FROM listing_lookup) AS lookup,
                (SELECT count() - uniqExact(listing_id) FROM listings) AS dup`,
      );
      expect(Number(r!.dup), 'duplicate listing rows in the base table').toBe(0);
      // Thrown, not undefined, so a timeout says by how much they differ (a fixture that dropped
      // listings but not their listing_lookup rows shows up as lookup > listings here).
      expect(Number(r!.lookup), 'listing_lookup rows (left) vs listings rows').toBe(Number(r!.base));
      return true;
    },
    30_000,
    'listing_lookup to match listings',
  );
}
