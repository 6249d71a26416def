// Stream workers announce themselves in Redis every few seconds, with their partitions and lag,
// so /healthz on any API process can tell whether the pipeline behind it is alive.
import type { Redis } from 'ioredis';
import { assertOneSlot } from './redis-keys/slot.ts';

export const HEARTBEAT_INTERVAL_MS = 3_000;
export const HEARTBEAT_STALE_MS = 15_000;

export interface WorkerBeat {
  worker_id: string;
  role: string;
  pid: number;
  started_at: string;
  consumers: Record<string, { partitions: number[]; lag: Record<string, number> }>;
}

/**
 * Worker ids scored by their last beat (sorted set), and each worker's beat (hash): written together
 * in one transaction, so both under one tag of their own (`{workers}`). A handful of workers beat
 * every few seconds: one slot carries it.
 */
export const workerRegistryKeys = (prefix: string) => ({
  beats: `${prefix}{workers}`,
  details: `${prefix}{workers}:details`,
});

export function workerRegistry(redis: Redis, prefix: string) {
  const { beats: zkey, details: hkey } = workerRegistryKeys(prefix);
  assertOneSlot([zkey, hkey], 'the worker registry');
  return {
    async beat(beat: WorkerBeat): Promise<void> {
      await redis
        .multi()
        .zadd(zkey, Date.now(), beat.worker_id)
        .hset(hkey, beat.worker_id, JSON.stringify(beat))
        .exec();
    },
    async remove(workerId: string): Promise<void> {
      await redis.multi().zrem(zkey, workerId).hdel(hkey, workerId).exec();
    },
    async live(): Promise<WorkerBeat[]> {
      const since = Date.now() - HEARTBEAT_STALE_MS;
      const stale = await redis.zrangebyscore(zkey, 0, since);
      if (stale.length)
        await redis
          .multi()
          .zrem(zkey, ...stale)
          .hdel(hkey, ...stale)
          .exec();
      const ids = await redis.zrangebyscore(zkey, since, '+inf');
      if (!ids.length) return [];
      const details = await redis.hmget(hkey, ...ids);
      return details.filter((d): d is string => d !== null).map((d) => JSON.parse(d) as WorkerBeat);
    },
  };
}
