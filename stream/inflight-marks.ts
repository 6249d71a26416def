// Batches a group member handed to its writers and whose rows may still be on their way into
// ClickHouse, per partition, in Redis: the fence of a pipelined consumer (offset-consumer.ts).
//
// Why: a member that returns a batch to kafkajs before its rows are stored (so it can fetch the
// next one meanwhile) may rejoin the group while that insert runs, and the partition's next owner
// would read which positions are stored before the insert lands, then store them again. So a
// member marks each batch before handing it over and clears the mark once the batch is stored,
// failed or revoked, and a member reads a partition's stored positions only once no live mark of
// that partition is left. A mark lives `ttlMs` unless renewed (a member that died stops renewing:
// after a session timeout its insert is over one way or the other, as the group assumes too).
// Deadlines are Redis' own clock (TIME), so members on machines whose clocks differ agree.
import type { Redis } from 'ioredis';
import { redisScript } from '../common/clients/redis-script.ts';
import type { Logger } from '../common/logger.ts';
import { setTimeout as sleep } from 'node:timers/promises';

// KEYS: the partition's hash; ARGV: batch id, ttl (ms). The hash outlives its newest mark.
const markScript = redisScript(`
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], now + ttl)
if redis.call('PTTL', KEYS[1]) < 2 * ttl then redis.call('PEXPIRE', KEYS[1], 2 * ttl) end
return 1
`);

// KEYS: the partition's hash. Drops expired marks; returns how many are live.
const liveScript = redisScript(
  `
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local entries = redis.call('HGETALL', KEYS[1])
local live = 0
for i = 1, #entries, 2 do
  if tonumber(entries[i + 1]) > now then live = live + 1 else redis.call('HDEL', KEYS[1], entries[i]) end
end
return live
`,
  { freesMemory: true },
);

export interface InflightMarks {
  /** Marks batch `id` of `partition` in flight for `ttlMs` (again to renew it). */
  mark(partition: number, id: string, ttlMs: number): Promise<void>;
  clear(partition: number, id: string): Promise<void>;
  /** How many batches of `partition` are marked in flight by any member. */
  live(partition: number): Promise<number>;
}

/**
 * The hash of one partition's marks (batch id → deadline). Its scripts touch it alone, so on a
 * cluster it is a tag of its own: the partitions' marks spread over the masters.
 */
export const inflightKey = (prefix: string, groupId: string, topic: string, partition: number) =>
  `${prefix}{inflight:${groupId}:${topic}:${partition}}`;

/** Marks of one consumer group's batches of `topic`. */

export function inflightMarks(redis: Redis, prefix: string, groupId: string, topic: string): InflightMarks {
  const key = (partition: number) => inflightKey(prefix, groupId, topic, partition);
  return {
    async mark(partition, id, ttlMs) {
      await markScript.run(redis, 1, key(partition), id, ttlMs);
    },
    async clear(partition, id) {
      await redis.hdel(key(partition), id);
    },
    async live(partition) {
      return Number(await liveScript.run(redis, 1, key(partition)));
    },
  };
}

/** How often a member waiting for another's batches in flight asks Redis again. */
const POLL_MS = 50;

/** Resolves once no live mark of `partition` is left; throws `signal`'s reason once it aborts. */
export async function noneLive(
  marks: InflightMarks,
  partition: number,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  for (let waited = 0; (await marks.live(partition)) > 0; waited += POLL_MS) {
    if (signal.aborted) throw signal.reason;
    if (waited === 1_000)
      logger.info('waiting for batches of the partition in flight elsewhere', { partition });
    await sleep(POLL_MS);
  }
}
