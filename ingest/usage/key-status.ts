// GET /listings/bulk (spec §4.2): the calling key's status and usage statistics, as a service.
// Never returns the plaintext key or its hash. Counts include the request that asks for them.
import type { Redis } from 'ioredis';
import { authenticatedKey } from '../../common/auth/authenticate.ts';
import type { ApiKeyRecord, RateLimitState } from '../../common/auth/key-store.ts';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { RATE_WINDOW_MS } from '../../common/auth/access-check.ts';
import { keyIdentity } from '../keys/public-key.ts';
import { readUsage, type ListingOutcomes, type UsageCounts } from '../../common/usage/counters.ts';

export interface KeyStatusResponse {
  key: {
    id: string;
    prefix: string;
    name: string;
    mode: 'live' | 'test';
    tier: string;
    role: string;
    status: 'active' | 'revoked';
    account_id: string;
    created_at: string;
    last_used_at: string | null;
    /** Set when the key was rolled: it stops working then (its replacement takes over). */
    expires_at: string | null;
  };
  limits: { requests_per_minute: number; max_images_per_listing: number; permissions: readonly string[] };
  rate_limit: {
    limit: number;
    remaining: number;
    reset_seconds: number;
    window_seconds: number;
    resets_at: string;
  };
  usage: {
    timezone: 'UTC';
    today: { date: string } & UsagePeriod;
    this_month: { month: string } & UsagePeriod;
    total: { listings: ListingOutcomes };
  };
}

interface UsagePeriod {
  requests: number;
  rate_limited: number;
  requests_by_endpoint: Record<string, number>;
  listings: ListingOutcomes;
}

export async function keyStatus(
  deps: { redis: Redis; prefix: string },
  auth: ApiKeyRecord,
  rateLimit: RateLimitState,
  now = new Date(),
): Promise<KeyStatusResponse> {
  const usage = await readUsage(deps.redis, deps.prefix, authenticatedKey(auth).hash, now);
  const policy = tierPolicies[auth.tier];
  return {
    key: keyIdentity(auth),
    limits: {
      requests_per_minute: auth.rate_limit,
      max_images_per_listing: policy.maxImagesPerListing,
      permissions: policy.permissions,
    },
    rate_limit: {
      limit: rateLimit.limit,
      remaining: rateLimit.remaining,
      reset_seconds: rateLimit.resetSeconds,
      window_seconds: RATE_WINDOW_MS / 1000,
      resets_at: new Date(now.getTime() + rateLimit.resetSeconds * 1000).toISOString(),
    },
    usage: {
      timezone: 'UTC',
      today: { date: usage.day, ...period(usage.today) },
      this_month: { month: usage.month, ...period(usage.this_month) },
      total: usage.total,
    },
  };
}

function period(counts: UsageCounts): UsagePeriod {
  return {
    requests: counts.requests.total,
    rate_limited: counts.requests.rate_limited,
    requests_by_endpoint: counts.requests.by_endpoint,
    listings: counts.listings,
  };
}
