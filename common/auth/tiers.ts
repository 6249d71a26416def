// Tiers and what they allow: the one table the README documents ("Tiers and limits").
export const tiers = ['free', 'pro', 'business', 'enterprise'] as const;
export type Tier = (typeof tiers)[number];

export const permissions = [
  'listings:write', // POST /listings/bulk, GET /listings/batches/:id
  'usage:read', // GET /listings/bulk
  'events:write', // POST /events/views
  'analytics:read', // GET /analytics/*
  'webhooks:manage', // /webhooks*
] as const;
export type Permission = (typeof permissions)[number];

export interface TierPolicy {
  permissions: readonly Permission[];
  maxImagesPerListing: number;
  requestsPerMinute: number;
  /** Only enterprise keys may be created with their own limit (`keys create --rate-limit N`). */
  customRateLimit: boolean;
}

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
