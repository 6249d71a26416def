// What every analytics operation in the OpenAPI document shares: a GET tagged analytics whose 200
// answer comes through the analytics cache; answers cached per account say in X-Cache whether it
// was a hit (send-answer.ts: market-wide ones do not).
import type { z } from 'zod';
import type { OperationSpec } from '../common/openapi/registry.ts';

const cacheHeader = {
  'X-Cache':
    'hit, miss or off: whether the answer came from the analytics cache (answers cached per account ' +
    'only: velocity, market share and the estimates; market-wide answers do not say, as a hit would ' +
    'tell that another account just asked the same question). A cached answer is at most ' +
    "ANALYTICS_CACHE_TTL_SECONDS old (30 s by default) and never older than the caller's account's " +
    'last completed batch or stored status change: your own writes show in your next answer, ' +
    "other accounts' within that lifetime.",
};

/** The lifecycle and estimate endpoints' tiers. */
export const tiers = 'Tiers business and enterprise (permission analytics:read).';

export interface CachedAnswerOperation extends Omit<OperationSpec, 'method' | 'tags' | 'responses'> {
  /** The 200 answer; other media types it may come in (GeoJSON …) under alternatives. */
  answer: { description: string; schema: z.ZodType; alternatives?: Record<string, z.ZodType> };
  /** `account`: the answer is cached per account and says so in X-Cache; `market`: one for all. */
  cacheScope: 'account' | 'market';
}

export function cachedAnswerOperation({
  answer,
  cacheScope,
  ...operation
}: CachedAnswerOperation): OperationSpec {
  return {
    method: 'get',
    ...operation,
    tags: ['analytics'],
    responses: { 200: cacheScope === 'account' ? { ...answer, headers: cacheHeader } : answer },
  };
}
