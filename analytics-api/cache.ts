// Cache-aside for hot analytics answers in Redis. Keys hold the endpoint, the mode (live/test) and
// the validated parameters, so no answer crosses modes; entries expire after ttlSeconds (0 = off).
// Redis trouble never fails a request: the answer is computed and served uncached.
import type { Redis } from 'ioredis';
import type { Logger } from '../common/logger.ts';

export type CacheOutcome = 'hit' | 'miss' | 'off';

export interface AnswerCache {
  ttlSeconds: number;
  getOrCompute<T>(key: string, compute: () => Promise<T>): Promise<{ value: T; cache: CacheOutcome }>;
}

export function createAnswerCache(options: {
  redis: Redis;
  keyPrefix: string;
  ttlSeconds: number;
  logger: Logger;
}): AnswerCache {
  const { redis, ttlSeconds, logger } = options;
  const fullKey = (key: string) => `${options.keyPrefix}analytics:v1:${key}`;
  return {
    ttlSeconds,
    async getOrCompute(key, compute) {
      if (ttlSeconds <= 0) return { value: await compute(), cache: 'off' };
      try {
        const cached = await redis.get(fullKey(key));
        if (cached !== null) return { value: JSON.parse(cached), cache: 'hit' };
      } catch (error) {
        logger.warn('analytics cache read failed', { error: String(error) });
      }
      const value = await compute();
      redis.set(fullKey(key), JSON.stringify(value), 'EX', ttlSeconds).catch((error: unknown) => {
        logger.warn('analytics cache write failed', { error: String(error) });
      });
      return { value, cache: 'miss' };
    },
  };
}
