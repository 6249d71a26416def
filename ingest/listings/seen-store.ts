// Fast-path duplicate detection in Redis: one key per listing id, claimed atomically for a whole
// request in one Lua call. The claim is short-lived until the Kafka publish succeeded (confirm), and
// removed if it failed (release), so a failed request never hides its listings from a retry.
// Losing these keys is harmless for correctness: ids are deterministic and the stream skips ids it
// already stored; only the "duplicate" label in the response depends on them.
import type { Redis } from 'ioredis';
import { redisScript } from '../../common/clients/redis-script.ts';

export const SEEN_TTL_SECONDS = 30 * 24 * 3600;
export const CLAIM_TTL_SECONDS = 60;
/** What starts the value of a claim whose request has not published yet. */
export const PENDING_PREFIX = 'p:';

// KEYS: seen keys; ARGV[1] pending marker, ARGV[2] claim ttl. Returns, per key, the existing value
// (original batch id, or "p:<batch>" while in flight) or false when this call claimed it.
const claimScript = redisScript(`
local out = {}
for i = 1, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if v then out[i] = v else
    redis.call('SET', KEYS[i], ARGV[1], 'EX', ARGV[2])
    out[i] = false
  end
end
return out
`);

// KEYS: seen keys; ARGV[1] batch id, ARGV[2] ttl. One command instead of one SET per listing.
const confirmScript = redisScript(`
for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1], 'EX', ARGV[2]) end
return #KEYS
`);

/** Who already holds a listing id: the batch that created it, or one still publishing it. */
export interface SeenHolder {
  batchId: string;
  /**
   * Claimed by a request that has not published yet: the listing may never exist (its publish can
   * still fail), so it must not be reported as a duplicate (bulk-create.ts answers a retriable 409).
   */
  inFlight: boolean;
}

/** The claim of one listing id: `p:<batch>` while its request publishes, then the batch id. */
export const seenKey = (prefix: string, listingId: string) => `${prefix}seen:${listingId}`;

/** A claim's value as a holder (a pending claim is in flight). */
export function seenHolder(value: string): SeenHolder {
  return value.startsWith(PENDING_PREFIX)
    ? { batchId: value.slice(PENDING_PREFIX.length), inFlight: true }
    : { batchId: value, inFlight: false };
}

/** The value of a claim while its request has not published yet. */
export const pendingClaim = (batchId: string) => `${PENDING_PREFIX}${batchId}`;

export function seenStore(redis: Redis, prefix: string) {
  const key = (listingId: string) => seenKey(prefix, listingId);
  return {
    /** For each id: null when claimed by this batch, else who holds it. */
    async claim(listingIds: string[], batchId: string): Promise<(SeenHolder | null)[]> {
      if (!listingIds.length) return [];
      const result = (await claimScript.run(
        redis,
        listingIds.length,
        ...listingIds.map(key),
        pendingClaim(batchId),
        CLAIM_TTL_SECONDS,
      )) as (string | null)[];
      return listingIds.map((_, i) => {
        const v = result[i];
        return typeof v === 'string' ? seenHolder(v) : null;
      });
    },

    async confirm(listingIds: string[], batchId: string): Promise<void> {
      if (!listingIds.length) return;
      await confirmScript.run(redis, listingIds.length, ...listingIds.map(key), batchId, SEEN_TTL_SECONDS);
    },

    async release(listingIds: string[]): Promise<void> {
      if (listingIds.length) await redis.del(...listingIds.map(key));
    },
  };
}

export type SeenStore = ReturnType<typeof seenStore>;
