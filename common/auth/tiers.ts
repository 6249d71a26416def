// Tiers and what they allow: the ONE table behind authorization, image limits and rate limits.
// docs/auth.md ("Tiers") renders it for the README; change both together.
//
// | tier       | permissions                                                  | images/listing | requests/min            |
// |------------|--------------------------------------------------------------|----------------|-------------------------|
// | free       | listings:write, usage:read, events:write                     | 5              | 60                      |
// | pro        | free + webhooks:manage                                       | 15             | 60                      |
// | business   | all (adds analytics:read)                                    | 30             | 60                      |
// | enterprise | all                                                          | 50             | 60, or `--rate-limit N` |
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
  /** Only enterprise keys may be created with their own limit (`keys create --rate-limit N`). */
  customRateLimit: boolean;
}

/** Upper bound of `--rate-limit N`. */
export const MAX_CUSTOM_RATE_LIMIT = 1_000_000;

const everything = permissions;

export const tierPolicies: Record<Tier, TierPolicy> = {
  free: {
    permissions: ['listings:write', 'usage:read', 'events:write'],
    maxImagesPerListing: 5,
    requestsPerMinute: 60,
    customRateLimit: false,
  },
  pro: {
    permissions: ['listings:write', 'usage:read', 'events:write', 'webhooks:manage'],
    maxImagesPerListing: 15,
    requestsPerMinute: 60,
    customRateLimit: false,
  },
  business: {
    permissions: everything,
    maxImagesPerListing: 30,
    requestsPerMinute: 60,
    customRateLimit: false,
  },
  enterprise: {
    permissions: everything,
    maxImagesPerListing: 50,
    requestsPerMinute: 60,
    customRateLimit: true,
  },
};
