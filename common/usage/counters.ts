// Usage counters in Redis: the writes that are not on the auth hot path (listing outcomes) and the
// reads behind GET /listings/bulk. Request counters are written by the access script
// (common/auth/access-check.ts) in the same round trip as the rate limit. A key's counters are
// named by the SHA-256 of the key (its hash tag, keys.ts): callers pass the hash that
// authenticated the request (keyHashOf in common/auth/authenticate.ts).
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { errorFields, type Logger } from '../logger.ts';
import { markDirty } from './dirty.ts';
import { bucketsOf, DAY_TTL_SECONDS, MONTH_TTL_SECONDS, usageFields, usageKeys } from './keys.ts';

export interface ListingOutcomes {
  created: number;
  duplicates: number;
  failed: number;
}

// KEYS[1] day, KEYS[2] month, KEYS[3] total hash (one key's, one slot). ARGV[1..3] created,
// duplicates, failed; ARGV[4] day ttl, ARGV[5] month ttl.
// One script instead of a MULTI of eleven commands: one command and one reply for the client.
const outcomesScript = redisScript(`
for i = 1, 3 do
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsCreated}', ARGV[1])
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsDuplicates}', ARGV[2])
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsFailed}', ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 1
`);

/**
 * The key's three counter hashes as of `now`: today's, this month's and the lifetime total, in the
 * order the outcomes script takes them (KEYS[1..3]) and readUsage answers them.
 */
function countersAt(prefix: string, keyHash: string, now: Date) {
  const keys = usageKeys(prefix, keyHash);
  const { day, month } = bucketsOf(now);
  return { day, month, hashes: [keys.day(day), keys.month(month), keys.total] as const };
}

/**
 * Adds the outcome of one accepted bulk request to the listing counters (today, this month, total)
 * of the key hashed `keyHash`, atomically, and marks the key in the day's dirty set (`parts`:
 * REDIS_GLOBAL_PARTS; another slot, so a command of its own, sent together). Called by the ingest
 * bulk-create service; rejects when Redis fails, so the caller decides whether that matters
 * (bulk-create logs it: the batch is already accepted).
 */
export async function recordListingOutcomes(
  redis: Redis,
  prefix: string,
  parts: number,
  keyHash: string,
  outcomes: ListingOutcomes,
  now = new Date(),
): Promise<void> {
  const { day, hashes } = countersAt(prefix, keyHash, now);
  await Promise.all([
    markDirty(redis, prefix, parts, day, keyHash),
    outcomesScript.run(
      redis,
      3,
      ...hashes,
      outcomes.created,
      outcomes.duplicates,
      outcomes.failed,
      DAY_TTL_SECONDS,
      MONTH_TTL_SECONDS,
    ),
  ]);
}

export interface RequestCounts {
  total: number;
  rate_limited: number;
  by_endpoint: Record<string, number>;
}

export interface UsageCounts {
  requests: RequestCounts;
  listings: ListingOutcomes;
}

export interface UsageSnapshot {
  day: string;
  month: string;
  today: UsageCounts;
  this_month: UsageCounts;
  total: { listings: ListingOutcomes };
}

/** The counters of the key hashed `keyHash` for the current UTC day and month, plus lifetime listing totals. */
export async function readUsage(
  redis: Redis,
  prefix: string,
  keyHash: string,
  now = new Date(),
): Promise<UsageSnapshot> {
  const { day, month, hashes } = countersAt(prefix, keyHash, now);
  // One key's hashes, one slot: a pipeline a Redis Cluster accepts.
  const pipeline = redis.pipeline();
  for (const hash of hashes) pipeline.hgetall(hash);
  const replies = await pipeline.exec();
  const [today, thisMonth, total] = (replies ?? []).map(([error, value]) => {
    if (error) throw error;
    return value as Record<string, string>;
  });
  return {
    day,
    month,
    today: toCounts(today ?? {}),
    this_month: toCounts(thisMonth ?? {}),
    total: { listings: toListings(total ?? {}) },
  };
}

export function toCounts(fields: Record<string, string>): UsageCounts {
  const byEndpoint: Record<string, number> = {};
  for (const [field, value] of Object.entries(fields)) {
    if (field.startsWith(usageFields.endpointPrefix)) {
      byEndpoint[field.slice(usageFields.endpointPrefix.length)] = Number(value);
    }
  }
  return {
    requests: {
      total: num(fields[usageFields.requests]),
      rate_limited: num(fields[usageFields.rateLimited]),
      by_endpoint: byEndpoint,
    },
    listings: toListings(fields),
  };
}

function toListings(fields: Record<string, string>): ListingOutcomes {
  return {
    created: num(fields[usageFields.listingsCreated]),
    duplicates: num(fields[usageFields.listingsDuplicates]),
    failed: num(fields[usageFields.listingsFailed]),
  };
}

const num = (value: string | undefined): number => (value ? Number(value) : 0);

/**
 * recordListingOutcomes for callers whose request already succeeded (the batch is accepted): a
 * Redis failure is logged, never thrown, so a usage counter cannot fail an accepted batch.
 */
export async function countListingOutcomes(
  platform: { redis: Redis; env: { REDIS_KEY_PREFIX: string; REDIS_GLOBAL_PARTS: number }; logger: Logger },
  key: { id: string; hash: string },
  outcomes: ListingOutcomes,
): Promise<void> {
  const { REDIS_KEY_PREFIX: prefix, REDIS_GLOBAL_PARTS: parts } = platform.env;
  await recordListingOutcomes(platform.redis, prefix, parts, key.hash, outcomes).catch((error: unknown) =>
    platform.logger.warn('usage counters not updated', { key_id: key.id, ...errorFields(error) }),
  );
}
