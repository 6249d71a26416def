// The analytics API's environment (npm run start:analytics; docs/configuration.md, "Variables"), parsed once at boot.
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
  // Fair admission of computations (cache misses) to the warehouse (admission.ts): at most this
  // many at once in the process, below the client's 10 sockets and the ClickHouse user's
  // max_concurrent_queries_for_user divided by the API processes that share that user …
  ANALYTICS_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(64).default(8),
  // … at most this many of one account, the rest of it waiting in turn with the other accounts …
  ANALYTICS_MAX_IN_FLIGHT_PER_ACCOUNT: z.coerce.number().int().min(1).max(64).default(4),
  // … and at most this many of one account waiting; one more is a 429 concurrency_limited.
  ANALYTICS_QUEUE_PER_ACCOUNT: z.coerce.number().int().min(0).max(1000).default(16),
  // The ClickHouse user the analytics queries run as (read-only, with its own limit of concurrent
  // queries in the server); unset: CLICKHOUSE_USER and CLICKHOUSE_PASSWORD.
  CLICKHOUSE_ANALYTICS_USER: z.string().min(1).optional(),
  CLICKHOUSE_ANALYTICS_PASSWORD: z.string().default(''),
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
