// Per-batch image counters in Redis hash `${prefix}batch:${batchId}:images` (checked, ok, failed,
// pending), read by GET /listings/batches/{id} and the batch.completed webhook. Idempotent: a
// listing adds its images to `pending` once, an image is counted once, so Kafka replays are harmless.
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';

const TTL_SECONDS = 7 * 24 * 3600; // as long as the batch record

// KEYS[1] summary, KEYS[2] seen-listings set; ARGV[1] listing id, ARGV[2] image count, ARGV[3] ttl.
const startScript = redisScript(`
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'pending', tonumber(ARGV[2]))
  for _, f in ipairs({'checked', 'ok', 'failed'}) do redis.call('HSETNX', KEYS[1], f, 0) end
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`);

// KEYS[1] summary, KEYS[2] done-images set; ARGV[1] "<listing>|<index>", ARGV[2] 1 ok / 0 failed, ARGV[3] ttl.
const doneScript = redisScript(`
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'pending', -1)
  redis.call('HINCRBY', KEYS[1], 'checked', 1)
  redis.call('HINCRBY', KEYS[1], ARGV[2] == '1' and 'ok' or 'failed', 1)
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 1
`);

export function imageSummaryStore(redis: Redis, prefix: string) {
  const key = (batchId: string) => `${prefix}batch:${batchId}:images`;
  return {
    async started(batchId: string, listingId: string, images: number): Promise<void> {
      await startScript.run(redis, 2, key(batchId), `${key(batchId)}:seen`, listingId, images, TTL_SECONDS);
    },
    async checked(batchId: string, listingId: string, index: number, ok: boolean): Promise<void> {
      await doneScript.run(
        redis,
        2,
        key(batchId),
        `${key(batchId)}:done`,
        `${listingId}|${index}`,
        ok ? '1' : '0',
        TTL_SECONDS,
      );
    },
  };
}
