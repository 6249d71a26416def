// Marks a key as used on a day, in the day's dirty set (keys.ts), so the rollup (stream/usage/rollup.ts)
// copies that day's counters to ClickHouse. The set is a REDIS_GLOBAL_PARTS part of its own (by key
// hash), not in the key's slot, so it is a command of its own beside the counters' script: callers
// send it right after the counters changed (a process that dies in between leaves that day's
// counters of the key unmarked until its next request). A process marks each key once a day at
// most: the set lives days, and marking again changes nothing.
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { DIRTY_TTL_SECONDS, dirtyKey } from './keys.ts';

// KEYS[1] the part of the day's dirty set. ARGV[1] key hash, ARGV[2] the set's TTL in seconds.
const markScript = redisScript(`
if redis.call('SADD', KEYS[1], ARGV[1]) == 1 and redis.call('TTL', KEYS[1]) < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 1
`);

export function markDirty(redis: Redis, prefix: string, parts: number, day: string, keyHash: string) {
  return markScript.run(redis, 1, dirtyKey(prefix, day, keyHash, parts), keyHash, DIRTY_TTL_SECONDS);
}

/** markDirty, once per key and day in this process. */
export function dirtyMarker(redis: Redis, prefix: string, parts: number) {
  let markedDay = '';
  let marked = new Set<string>();
  return async (day: string, keyHash: string): Promise<void> => {
    if (day !== markedDay) {
      markedDay = day;
      marked = new Set();
    }
    if (marked.has(keyHash)) return;
    await markDirty(redis, prefix, parts, day, keyHash);
    marked.add(keyHash);
  };
}

export type DirtyMarker = ReturnType<typeof dirtyMarker>;
