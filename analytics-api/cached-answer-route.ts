// What every analytics route shares: a GET tagged analytics, for keys with analytics:read, whose
// validated query is answered through the analytics cache; answers cached per account say in
// X-Cache whether it was a hit (send-answer.ts: market-wide ones do not).
import type { z } from 'zod';
import { defineRoute, type Route, type RouteDeclaration, type RouteInput } from '../common/http/route.ts';
import type { AnalyticsContext } from './context.ts';
import type { EstimateQuota } from './estimate-quota.ts';
import { send } from './send-answer.ts';
import type { CacheOutcome } from './cache.ts';

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

/** What the analytics handlers use, given once when the routes are mounted. */
export interface AnalyticsDeps {
  ctx: AnalyticsContext;
  estimateQuota: EstimateQuota;
}

type Documented = Omit<
  RouteDeclaration<AnalyticsDeps, unknown, never>,
  'method' | 'tags' | 'responses' | 'access' | 'query' | 'body' | 'handler'
>;

export interface CachedAnswerRoute<Q> extends Documented {
  query: { schema: z.ZodObject; parse: (raw: Record<string, unknown>) => Q };
  /** The 200 answer; other media types it may come in (GeoJSON …) under alternatives. */
  answer: { description: string; schema: z.ZodType; alternatives?: Record<string, z.ZodType> };
  /** `account`: the answer is cached per account and says so in X-Cache; `market`: one for all. */
  cacheScope: 'account' | 'market';
  /** The answer, through the cache; the route sends it with the cache scope's headers. */
  answerWith: (
    input: RouteInput<Q, undefined>,
    deps: AnalyticsDeps,
  ) => Promise<{ value: unknown; cache: CacheOutcome }>;
}

export function cachedAnswerRoute<Q>({
  answer,
  cacheScope,
  answerWith,
  ...operation
}: CachedAnswerRoute<Q>): Route<AnalyticsDeps> {
  return defineRoute<AnalyticsDeps, Q, undefined>({
    method: 'get',
    ...operation,
    tags: ['analytics'],
    access: { permission: 'analytics:read' },
    responses: { 200: cacheScope === 'account' ? { ...answer, headers: cacheHeader } : answer },
    async handler(input, deps) {
      send(input.res, await answerWith(input, deps), cacheScope);
      return undefined;
    },
  });
}
