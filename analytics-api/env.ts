// The analytics API's environment (npm run start:analytics; README, "Configuration"), parsed once at boot.
import { z } from 'zod';
import {
  baseEnvSchema,
  checkListenerEnv,
  checkTlsEnv,
  listenerEnvSchema,
  sharedEnvSchema,
  tlsEnvSchema,
} from '../common/env.ts';

/** PORT when unset. */
export const ANALYTICS_DEFAULT_PORT = 8082;

/** Settings of the analytics endpoints, whichever process (gateway or analytics-api) serves them. */
export const analyticsSettingsSchema = sharedEnvSchema.pick({ FX_USD_TZS: true }).extend({
  /** Redis cache-aside lifetime of pricing/heatmap answers; 0 turns the cache off. */
  ANALYTICS_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
});
export type AnalyticsSettings = z.infer<typeof analyticsSettingsSchema>;

export const analyticsEnvSchema = baseEnvSchema
  .extend(analyticsSettingsSchema.shape)
  .extend(sharedEnvSchema.pick({ PORT: true }).shape)
  .extend(listenerEnvSchema.shape)
  .extend(tlsEnvSchema.shape)
  .superRefine(checkListenerEnv)
  .superRefine(checkTlsEnv);
export type AnalyticsEnv = z.infer<typeof analyticsEnvSchema>;
