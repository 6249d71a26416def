// Per-batch image check counters in the Redis hash `<prefix>{a:<account>}:batch:<batchId>:images`
// (under the batch's account tag, like the batch: common/batches.ts) (checked, ok,
// failed, pending), written by the image process (stream/images/checker.ts) and read by
// GET /listings/batches/{id} and the listings.batch.completed event. Idempotent: a listing adds its
// images to `pending` once, an image is counted once, so Kafka replays are harmless.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { readCounterHash } from '../clients/redis-counters.ts';
import { BATCH_TTL_SECONDS } from '../batches.ts';
import { redisScript } from '../clients/redis-script.ts';
import { accountSpace } from '../redis-keys/tags.ts';

/** A batch's image checks so far, as GET /listings/batches/{id} shows them. */
export const imageChecksSchema = z.object({
  checked: z.number().int(),
  ok: z.number().int(),
  failed: z.number().int(),
  pending: z.number().int(),
});
export type ImageChecks = z.infer<typeof imageChecksSchema>;

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

export const imageChecksKey = (prefix: string, accountId: string, batchId: string) =>
  `${accountSpace(prefix, accountId)}batch:${batchId}:images`;

/** Beside the counters: the listings already counted, and the images already checked (sets). */
export const imageCheckSets = (countersKey: string) => ({
  seenListings: `${countersKey}:seen`,
  doneImages: `${countersKey}:done`,
});

export function imageChecksStore(redis: Redis, prefix: string) {
  return {
    async started(accountId: string, batchId: string, listingId: string, images: number): Promise<void> {
      const key = imageChecksKey(prefix, accountId, batchId);
      await startScript.run(
        redis,
        2,
        key,
        imageCheckSets(key).seenListings,
        listingId,
        images,
        BATCH_TTL_SECONDS,
      );
    },
    async checked(
      accountId: string,
      batchId: string,
      listingId: string,
      index: number,
      ok: boolean,
    ): Promise<void> {
      const key = imageChecksKey(prefix, accountId, batchId);
      await doneScript.run(
        redis,
        2,
        key,
        imageCheckSets(key).doneImages,
        `${listingId}|${index}`,
        ok ? '1' : '0',
        BATCH_TTL_SECONDS,
      );
    },
  };
}

/** The counters as known now (checks may still be running); null before any listing of the batch started. */
export async function readImageChecks(
  redis: Redis,
  prefix: string,
  accountId: string,
  batchId: string,
): Promise<ImageChecks | null> {
  const counters = await readCounterHash(redis, imageChecksKey(prefix, accountId, batchId));
  if (!counters) return null;
  const n = counters.count;
  return { checked: n('checked'), ok: n('ok'), failed: n('failed'), pending: n('pending') };
}
