// How every analytics route sends its cached answer.
import type { Response } from 'express';
import type { CacheOutcome } from './cache.ts';

/**
 * X-Cache says whether the answer came from the cache (hit/miss/off), on answers cached per
 * account only: on a market-wide answer (one entry for every account) a hit would tell one tenant
 * that another just asked the same question.
 */
export function send(
  res: Response,
  answer: { value: unknown; cache: CacheOutcome },
  scope: 'account' | 'market',
): void {
  if (scope === 'account') res.setHeader('X-Cache', answer.cache);
  res.setHeader('Cache-Control', 'private, max-age=0');
  res.json(answer.value);
}
