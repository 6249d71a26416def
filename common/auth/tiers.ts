// Tiers and what they allow: the ONE table behind authorization, image limits and rate limits.
// docs/auth.md ("Tiers") renders it; change both together.
//
// | tier       | permissions                              | images/listing | requests/min per key    | requests/min per account | listings/day | view events/day | status updates/day | snapshot ids/day | ids/snapshot | kept replies/day |
// |------------|------------------------------------------|----------------|-------------------------|--------------------------|--------------|-----------------|--------------------|------------------|--------------|------------------|
// | free       | listings:write, usage:read, events:write | 5              | 60                      | 120                      | 1,000        | 10,000          | 2,000              | 20,000           | 10,000       | 5 MB             |
// | pro        | free + webhooks:manage                   | 15             | 60                      | 180                      | 10,000       | 100,000         | 20,000             | 200,000          | 100,000      | 50 MB            |
// | business   | all (adds analytics:read)                | 30             | 60                      | 240                      | 100,000      | 1,000,000       | 200,000            | 500,000          | 250,000      | 200 MB           |
// | enterprise | all                                      | 50             | 60, or `--rate-limit N` | 600, or the key's N      | 1,000,000    | 10,000,000      | 2,000,000          | 2,000,000        | 1,000,000    | 1 GB             |
//
// The account's rate counts the requests of all its keys (both modes) in one window beside each
// key's: more keys do not multiply an account's rate beyond its tier's figure. A key with its own
// higher `--rate-limit N` raises the account's figure to N for that key's requests.
//
// Distinct cells asked for point rent estimates per account, mode and UTC day
// (analytics-api/estimate-quota.ts; scaled by `--rate-limit N` like the daily quotas below): free
// 20, pro 50, business 200, enterprise 1,000 (only business and enterprise may ask).
//
// Daily quotas count per account and mode (UTC day) what stays in Redis and the warehouse: listings
// created, view events and status updates accepted, snapshot external ids received and the bytes
// of Idempotency-Key replies kept (ingest/quota.ts). A key with its own `--rate-limit N` has all but snapshot ids
// scaled by N / 60, so load tests measure capacity rather
// than the quota; snapshot ids are not scaled (they are held in Redis whole until the snapshot
// completes, so their bound is a memory bound). Twice the largest snapshot a day lets a failed
// snapshot be sent again the same day.
export const tiers = ['free', 'pro', 'business', 'enterprise'] as const;
export type Tier = (typeof tiers)[number];

export const permissions = [
  'listings:write', // POST /listings/bulk, GET /listings/batches/:id
  'usage:read', // GET /listings/bulk (key status and usage)
  'events:write', // POST /events/views
  'analytics:read', // GET /analytics/*
  'webhooks:manage', // /webhooks*
] as const;
export type Permission = (typeof permissions)[number];

export interface TierPolicy {
  permissions: readonly Permission[];
  maxImagesPerListing: number;
  /** Default limit of a key of this tier (spec §8: 60 per key). */
  requestsPerMinute: number;
  /** Requests per minute of all the account's keys together (access-check.ts). */
  accountRequestsPerMinute: number;
  /** Only enterprise keys may be created with their own limit (`keys create --rate-limit N`). */
  customRateLimit: boolean;
  /** Listings an account may create per UTC day and mode (duplicates and failures are free). */
  listingsPerDay: number;
  /** View events an account may have accepted per UTC day and mode. */
  viewEventsPerDay: number;
  /** Status updates an account may have accepted per UTC day and mode (POST /listings/status). */
  statusUpdatesPerDay: number;
  /** Snapshot external ids an account may send per UTC day and mode (parts sent again are free). */
  snapshotIdsPerDay: number;
  /** Most external ids one snapshot may declare (all its parts together). */
  maxSnapshotIds: number;
  /** Bytes of Idempotency-Key replies an account may have kept per UTC day and mode (24 h each). */
  keptReplyBytesPerDay: number;
  /**
   * Distinct H3 cells an account may ask point rent estimates for per UTC day and mode (the same
   * cell again is free): what bounds locating other accounts' listings from many search centres.
   */
  estimateCellsPerDay: number;
}

/** Upper bound of `--rate-limit N`. */
export const MAX_CUSTOM_RATE_LIMIT = 1_000_000;

const everything = permissions;

export const tierPolicies: Record<Tier, TierPolicy> = {
  free: {
    permissions: ['listings:write', 'usage:read', 'events:write'],
    maxImagesPerListing: 5,
    requestsPerMinute: 60,
    accountRequestsPerMinute: 120,
    customRateLimit: false,
    listingsPerDay: 1_000,
    viewEventsPerDay: 10_000,
    statusUpdatesPerDay: 2_000,
    snapshotIdsPerDay: 20_000,
    maxSnapshotIds: 10_000,
    keptReplyBytesPerDay: 5_000_000,
    estimateCellsPerDay: 20,
  },
  pro: {
    permissions: ['listings:write', 'usage:read', 'events:write', 'webhooks:manage'],
    maxImagesPerListing: 15,
    requestsPerMinute: 60,
    accountRequestsPerMinute: 180,
    customRateLimit: false,
    listingsPerDay: 10_000,
    viewEventsPerDay: 100_000,
    statusUpdatesPerDay: 20_000,
    snapshotIdsPerDay: 200_000,
    maxSnapshotIds: 100_000,
    keptReplyBytesPerDay: 50_000_000,
    estimateCellsPerDay: 50,
  },
  business: {
    permissions: everything,
    maxImagesPerListing: 30,
    requestsPerMinute: 60,
    accountRequestsPerMinute: 240,
    customRateLimit: false,
    listingsPerDay: 100_000,
    viewEventsPerDay: 1_000_000,
    statusUpdatesPerDay: 200_000,
    snapshotIdsPerDay: 500_000,
    maxSnapshotIds: 250_000,
    keptReplyBytesPerDay: 200_000_000,
    estimateCellsPerDay: 200,
  },
  enterprise: {
    permissions: everything,
    maxImagesPerListing: 50,
    requestsPerMinute: 60,
    accountRequestsPerMinute: 600,
    customRateLimit: true,
    listingsPerDay: 1_000_000,
    viewEventsPerDay: 10_000_000,
    statusUpdatesPerDay: 2_000_000,
    snapshotIdsPerDay: 2_000_000,
    maxSnapshotIds: 1_000_000,
    keptReplyBytesPerDay: 1_000_000_000,
    estimateCellsPerDay: 1_000,
  },
};

/** A key's daily quota of `kind`: its tier's, scaled by its own rate limit when it has one. */
export function dailyQuota(
  key: { tier: Tier; rate_limit: number },
  kind:
    | 'listingsPerDay'
    | 'viewEventsPerDay'
    | 'statusUpdatesPerDay'
    | 'keptReplyBytesPerDay'
    | 'estimateCellsPerDay',
): number {
  const policy = tierPolicies[key.tier];
  const scale = Math.max(1, key.rate_limit / policy.requestsPerMinute);
  return Math.round(policy[kind] * scale);
}
