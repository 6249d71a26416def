// Per-batch photo analysis counters in the Redis hash `${prefix}{a:<account>}:batch:${batchId}:photos`
// (under the batch's account tag, like the batch: common/batches.ts), written
// by the stream's image checker and read by GET /listings/batches/{id} and the
// listings.batch.completed event (docs/webhooks.md, "Photo tagging and reuse"). Idempotent like the
// image-check counters: each image is counted once, so Kafka replays are harmless.
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { readCounterHash } from '../clients/redis-counters.ts';
import { BATCH_TTL_SECONDS } from '../batches.ts';
import { redisScript } from '../clients/redis-script.ts';
import { accountSpace } from '../redis-keys/tags.ts';

/** A batch's photo analysis so far, as GET /listings/batches/{id} shows it. */
export const photoSummarySchema = z.object({
  /** Images analysed so far (every outcome). */
  analysed: z.number().int(),
  /** Decoded as an image. */
  decoded: z.number().int(),
  /** Checked OK but not decodable: download failed, too large, not an image, too many pixels, too small. */
  undecodable: z.number().int(),
  /** Decoded, and the model gave an ImageOf value. */
  tagged: z.number().int(),
  /** Decoded, and the model abstained (Other). */
  abstained: z.number().int(),
  /** Decoded photos already on another account's listing. */
  reused: z.number().int(),
  /** Images per ImageOf value (the first tag of each tagged photo). */
  tags: z.record(z.string(), z.number().int()).meta({ description: 'Photos per RESO ImageOf value' }),
});
export type PhotoSummary = z.infer<typeof photoSummarySchema>;

export interface AnalysedPhoto {
  outcome: string;
  image_of: string;
  reused: boolean;
}

// KEYS[1] summary, KEYS[2] done set; ARGV[1] "<listing>|<index>", ARGV[2] ttl, ARGV[3..] fields.
const countScript = redisScript(`
if redis.call('SADD', KEYS[2], ARGV[1]) == 1 then
  for i = 3, #ARGV do redis.call('HINCRBY', KEYS[1], ARGV[i], 1) end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return 1
`);

export const photoSummaryKey = (prefix: string, accountId: string, batchId: string) =>
  `${accountSpace(prefix, accountId)}batch:${batchId}:photos`;
/** Beside the counters: the images already counted (set). */
export const photoSummaryDoneKey = (summaryKey: string) => `${summaryKey}:done`;

export async function countPhoto(
  redis: Redis,
  prefix: string,
  accountId: string,
  batchId: string,
  listingId: string,
  index: number,
  photo: AnalysedPhoto,
): Promise<void> {
  const fields = ['analysed'];
  if (photo.outcome === 'decoded') {
    fields.push('decoded');
    if (photo.image_of && photo.image_of !== 'Other') fields.push('tagged', `tag:${photo.image_of}`);
    else if (photo.image_of) fields.push('abstained');
    if (photo.reused) fields.push('reused');
  } else if (photo.outcome !== 'not_checked') fields.push('undecodable');
  const key = photoSummaryKey(prefix, accountId, batchId);
  await countScript.run(
    redis,
    2,
    key,
    photoSummaryDoneKey(key),
    `${listingId}|${index}`,
    BATCH_TTL_SECONDS,
    ...fields,
  );
}

/** The summary as known now; null before the checker analysed any image of the batch. */
export async function readPhotoSummary(
  redis: Redis,
  prefix: string,
  accountId: string,
  batchId: string,
): Promise<PhotoSummary | null> {
  const counters = await readCounterHash(redis, photoSummaryKey(prefix, accountId, batchId));
  if (!counters) return null;
  const n = counters.count;
  const tags = Object.fromEntries(
    counters.names
      .filter((name) => name.startsWith('tag:'))
      .sort()
      .map((name) => [name.slice(4), n(name)]),
  );
  return {
    analysed: n('analysed'),
    decoded: n('decoded'),
    undecodable: n('undecodable'),
    tagged: n('tagged'),
    abstained: n('abstained'),
    reused: n('reused'),
    tags,
  };
}
