import { z } from 'zod';
import { DEFAULT_USD_TZS } from '../common/domain/fx.ts';
import { baseEnvSchema, envFields } from '../common/env.ts';

/** Settings of the analytics endpoints, whichever process (gateway or analytics-api) serves them. */
export const analyticsSettingsSchema = z.object({
  /** Redis cache-aside lifetime of pricing/heatmap answers; 0 turns the cache off. */
  ANALYTICS_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /** USD→TZS rate of rent estimates asked in USD: the stream's FX_USD_TZS (set both alike). */
  FX_USD_TZS: z.coerce.number().positive().finite().default(DEFAULT_USD_TZS),
});

export const analyticsEnvSchema = baseEnvSchema.extend({
  PORT: envFields.port.default(8082),
  ...analyticsSettingsSchema.shape,
});
export type AnalyticsEnv = z.infer<typeof analyticsEnvSchema>;
