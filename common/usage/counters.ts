// Usage counters in Redis: the writes that are not on the auth hot path (listing outcomes) and the
// reads behind GET /listings/bulk. Request counters are written by the access script
// (common/auth/access-check.ts) in the same round trip as the rate limit.
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { errorFields, type Logger } from '../logger.ts';
import {
  bucketsOf,
  DAY_TTL_SECONDS,
  DIRTY_TTL_SECONDS,
  dirtyKey,
  MONTH_TTL_SECONDS,
  usageFields,
  usageKeys,
} from './keys.ts';

export interface ListingOutcomes {
  created: number;
  duplicates: number;
  failed: number;
}

// KEYS[1] day, KEYS[2] month, KEYS[3] total hash, KEYS[4] the day's dirty set. ARGV[1..3] created,
// duplicates, failed; ARGV[4] key id; ARGV[5] day ttl, ARGV[6] month ttl, ARGV[7] dirty set ttl.
// One script instead of a MULTI of fifteen commands: one command and one reply for the client.
const outcomesScript = redisScript(`
for i = 1, 3 do
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsCreated}', ARGV[1])
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsDuplicates}', ARGV[2])
  redis.call('HINCRBY', KEYS[i], '${usageFields.listingsFailed}', ARGV[3])
end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[2], ARGV[6])
redis.call('SADD', KEYS[4], ARGV[4])
redis.call('EXPIRE', KEYS[4], ARGV[7])
return 1
`);

/**
 * The key's three counter hashes as of `now`: today's, this month's and the lifetime total, in the
 * order the outcomes script takes them (KEYS[1..3]) and readUsage answers them.
 */
function countersAt(prefix: string, keyId: string, now: Date) {
  const keys = usageKeys(prefix, keyId);
  const { day, month } = bucketsOf(now);
  return { day, month, hashes: [keys.day(day), keys.month(month), keys.total] as const };
}

/**
 * Adds the outcome of one accepted bulk request to the key's listing counters (today, this month,
 * total), atomically. Called by the ingest bulk-create service; rejects when Redis fails, so the
 * caller decides whether that matters (bulk-create logs it: the batch is already accepted).
 */
export async function recordListingOutcomes(
  redis: Redis,
  prefix: string,
  keyId: string,
  outcomes: ListingOutcomes,
  now = new Date(),
): Promise<void> {
  const { day, hashes } = countersAt(prefix, keyId, now);
  await outcomesScript.run(
    redis,
    4,
    ...hashes,
    dirtyKey(prefix, day),
    outcomes.created,
    outcomes.duplicates,
    outcomes.failed,
    keyId,
    DAY_TTL_SECONDS,
    MONTH_TTL_SECONDS,
    DIRTY_TTL_SECONDS,
  );
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

/** The key's counters for the current UTC day and month, plus lifetime listing totals. */
export async function readUsage(
  redis: Redis,
  prefix: string,
  keyId: string,
  now = new Date(),
): Promise<UsageSnapshot> {
  const { day, month, hashes } = countersAt(prefix, keyId, now);
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
  platform: { redis: Redis; env: { REDIS_KEY_PREFIX: string }; logger: Logger },
  keyId: string,
  outcomes: ListingOutcomes,
): Promise<void> {
  await recordListingOutcomes(platform.redis, platform.env.REDIS_KEY_PREFIX, keyId, outcomes).catch(
    (error: unknown) =>
      platform.logger.warn('usage counters not updated', { key_id: keyId, ...errorFields(error) }),
  );
}
