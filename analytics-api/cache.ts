// Cache-aside for hot analytics answers in Redis. Keys hold the endpoint, the mode (live/test) and
// the validated parameters, so no answer crosses modes; entries expire after ttlSeconds (0 = off).
// Each entry carries the Redis time its computation started. An account is not served an entry
// older than its last completed batch or stored status change (common/account-stored-at.ts): once a
// batch is `completed`, its account's next answer includes it. Anyone else's new data shows within
// one lifetime.
// Redis trouble never fails a request: the answer is computed and served uncached.
// A computation runs through `admit` (admission.ts: the account's fair share of the warehouse);
// a hit never waits for it.
import type { Redis } from 'ioredis';
import { accountStoredAtKey } from '../common/account-stored-at.ts';
import type { Logger } from '../common/logger.ts';

export type CacheOutcome = 'hit' | 'miss' | 'off';

export interface AnswerCache {
  ttlSeconds: number;
  /** `account`: the caller's account, whose stored batches and status changes the answer must include. */
  getOrCompute<T>(
    key: string,
    account: string,
    compute: () => Promise<T>,
  ): Promise<{ value: T; cache: CacheOutcome }>;
}

/** Redis's TIME reply ([seconds, microseconds]) in microseconds, exact as a number until 2255. */
const micros = ([seconds, us]: [string, string]) => Number(seconds) * 1_000_000 + Number(us);

/** An entry is "<micros at which its computation started> <answer JSON>". */
function parseEntry(entry: string): { at: number; json: string } {
  const space = entry.indexOf(' ');
  return { at: Number(entry.slice(0, space)), json: entry.slice(space + 1) };
}

/** The cached answer of a question (`key`: endpoint, mode and validated parameters). */
export const answerCacheKey = (prefix: string, key: string) => `${prefix}analytics:v2:${key}`;

export function createAnswerCache(options: {
  redis: Redis;
  keyPrefix: string;
  ttlSeconds: number;
  logger: Logger;
  /** Runs a computation of `account` when it may (default: at once). */
  admit?: <T>(account: string, compute: () => Promise<T>) => Promise<T>;
}): AnswerCache {
  const { redis, ttlSeconds, logger, keyPrefix } = options;
  const admit = options.admit ?? ((_account, compute) => compute());
  const fullKey = (key: string) => answerCacheKey(keyPrefix, key);
  return {
    ttlSeconds,
    async getOrCompute(key, account, compute) {
      if (ttlSeconds <= 0) return { value: await admit(account, compute), cache: 'off' };
      let startedAt: number | undefined;
      try {
        // One round trip: the entry, the account's last completion and the clock they compare to.
        const replies = await redis
          .pipeline()
          .get(fullKey(key))
          .get(accountStoredAtKey(keyPrefix, account))
          .time()
          .exec();
        const failed = replies?.find(([error]) => error)?.[0];
        if (!replies || failed) throw failed ?? new Error('pipeline discarded');
        const [[, cached], [, storedAt], [, time]] = replies as [
          [null, string | null],
          [null, string | null],
          [null, [string, string]],
        ];
        startedAt = micros(time);
        if (cached !== null) {
          const entry = parseEntry(cached);
          if (storedAt === null || entry.at > Number(storedAt)) {
            return { value: JSON.parse(entry.json), cache: 'hit' };
          }
        }
      } catch (error) {
        logger.warn('analytics cache read failed', { error: String(error) });
      }
      const value = await admit(account, compute);
      // Without the clock (Redis failed above) the answer is not cached: its age would be unknown.
      if (startedAt !== undefined) {
        redis
          .set(fullKey(key), `${startedAt} ${JSON.stringify(value)}`, 'EX', ttlSeconds)
          .catch((error: unknown) => {
            logger.warn('analytics cache write failed', { error: String(error) });
          });
      }
      return { value, cache: 'miss' };
    },
  };
}
