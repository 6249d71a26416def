// Composition root of the analytics API.
import { parseEnv } from '../common/env.ts';
import type { Platform } from '../common/platform.ts';
import { createAnswerCache, type AnswerCache } from './cache.ts';
import { analyticsSettingsSchema } from './env.ts';

export interface AnalyticsContext {
  platform: Platform;
  cache: AnswerCache;
  close(): Promise<void>;
}

export interface AnalyticsOptions {
  cacheTtlSeconds?: number;
}

/** Options default to the process environment (ANALYTICS_CACHE_TTL_SECONDS), parsed once here. */
export async function createAnalyticsContext(
  platform: Platform,
  options: AnalyticsOptions = {},
): Promise<AnalyticsContext> {
  const ttl = options.cacheTtlSeconds ?? parseEnv(analyticsSettingsSchema).ANALYTICS_CACHE_TTL_SECONDS;
  const cache = createAnswerCache({
    redis: platform.redis,
    keyPrefix: platform.env.REDIS_KEY_PREFIX,
    ttlSeconds: ttl,
    logger: platform.logger,
  });
  return { platform, cache, close: async () => undefined };
}
