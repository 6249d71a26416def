// Cache-aside for hot analytics answers in Redis. Keys hold the endpoint, the mode (live/test) and
// the validated parameters, so no answer crosses modes; entries expire after ttlSeconds (0 = off).
// Each entry carries the Redis time its computation started. An account is not served an entry
// older than its last completed batch or stored status change (common/account-stored-at.ts): once a
// batch is `completed`, its account's next answer includes it. Anyone else's new data shows within
// one lifetime.
// An answer for one account (its key holds the account) is kept under that account's hash tag; an
// answer for anyone (the market's) under one of REDIS_GLOBAL_PARTS parts, by its question, so the
// cache spreads over a Redis Cluster's masters. The entry and the account's stored-at mark may then
// be in different slots: they are read as separate commands, sent together (one round trip).
// Redis trouble never fails a request: the answer is computed and served uncached.
// A computation runs through `admit` (admission.ts: the account's fair share of the warehouse);
// a hit never waits for it.
import type { Redis } from 'ioredis';
import { accountStoredAtKey } from '../common/account-stored-at.ts';
import type { Logger } from '../common/logger.ts';
import { accountSpace, partOf, partSpace } from '../common/redis-keys/tags.ts';

export type CacheOutcome = 'hit' | 'miss' | 'off';

/** A question: endpoint, mode and validated parameters, and whether its answer is the caller's own. */
export interface CacheQuestion {
  key: string;
  /** The answer depends on the calling account (its key holds the account id). */
  perAccount: boolean;
}

export interface AnswerCache {
  ttlSeconds: number;
  /** `account`: the caller's account, whose stored batches and status changes the answer must include. */
  getOrCompute<T>(
    question: CacheQuestion,
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

/** The cached answer of a question: under the account's tag when it is the account's own, else a part's. */
export const answerCacheKey = (prefix: string, question: CacheQuestion, account: string, parts: number) =>
  question.perAccount
    ? `${accountSpace(prefix, account)}analytics:v2:${question.key}`
    : `${partSpace(prefix, partOf(question.key, parts))}analytics:v2:${question.key}`;

export function createAnswerCache(options: {
  redis: Redis;
  keyPrefix: string;
  /** REDIS_GLOBAL_PARTS: how many parts the answers not per account are spread over. */
  parts: number;
  ttlSeconds: number;
  logger: Logger;
  /** Runs a computation of `account` when it may (default: at once). */
  admit?: <T>(account: string, compute: () => Promise<T>) => Promise<T>;
}): AnswerCache {
  const { redis, ttlSeconds, logger, keyPrefix, parts } = options;
  const admit = options.admit ?? ((_account, compute) => compute());
  return {
    ttlSeconds,
    async getOrCompute(question, account, compute) {
      if (ttlSeconds <= 0) return { value: await admit(account, compute), cache: 'off' };
      const entryKey = answerCacheKey(keyPrefix, question, account, parts);
      let startedAt: number | undefined;
      try {
        // Sent together: the entry, the account's last completion and the clock they compare to.
        const [cached, storedAt, time] = await Promise.all([
          redis.get(entryKey),
          redis.get(accountStoredAtKey(keyPrefix, account)),
          redis.time() as unknown as Promise<[string, string]>,
        ]);
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
          .set(entryKey, `${startedAt} ${JSON.stringify(value)}`, 'EX', ttlSeconds)
          .catch((error: unknown) => {
            logger.warn('analytics cache write failed', { error: String(error) });
          });
      }
      return { value, cache: 'miss' };
    },
  };
}
