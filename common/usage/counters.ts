// Usage counters in Redis: the writes that are not on the auth hot path (listing outcomes) and the
// reads behind GET /listings/bulk. Request counters are written by the access script
// (common/auth/access-check.ts) in the same round trip as the rate limit.
import type { Redis } from 'ioredis';
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

/**
 * Adds the outcome of one accepted bulk request to the key's listing counters (today, this month,
 * total), in one MULTI. Called by the ingest bulk-create service; rejects when Redis fails, so the
 * caller decides whether that matters (bulk-create logs it: the batch is already accepted).
 */
export async function recordListingOutcomes(
  redis: Redis,
  prefix: string,
  keyId: string,
  outcomes: ListingOutcomes,
  now = new Date(),
): Promise<void> {
  const keys = usageKeys(prefix, keyId);
  const { day, month } = bucketsOf(now);
  const tx = redis.multi();
  for (const hash of [keys.day(day), keys.month(month), keys.total]) {
    tx.hincrby(hash, usageFields.listingsCreated, outcomes.created)
      .hincrby(hash, usageFields.listingsDuplicates, outcomes.duplicates)
      .hincrby(hash, usageFields.listingsFailed, outcomes.failed);
  }
  tx.expire(keys.day(day), DAY_TTL_SECONDS)
    .expire(keys.month(month), MONTH_TTL_SECONDS)
    .sadd(dirtyKey(prefix, day), keyId)
    .expire(dirtyKey(prefix, day), DIRTY_TTL_SECONDS);
  const replies = await tx.exec();
  const failed = replies?.find(([error]) => error);
  if (!replies || failed) throw failed?.[0] ?? new Error('usage counters transaction aborted');
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
  const keys = usageKeys(prefix, keyId);
  const { day, month } = bucketsOf(now);
  const replies = await redis
    .pipeline()
    .hgetall(keys.day(day))
    .hgetall(keys.month(month))
    .hgetall(keys.total)
    .exec();
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
