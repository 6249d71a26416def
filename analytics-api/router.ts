// HTTP surface of the analytics API: authenticate, validate, answer through the cache. The numbers
// are computed in services/; the rules are in rules.ts and docs/analytics.md.
import { Router, type Response } from 'express';
import { authenticate, authOf, requirePermission } from '../common/auth/authenticate.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import type { AnalyticsContext } from './context.ts';
import { registerAnalyticsPaths } from './openapi.ts';
import { parseHeatmapParams, parsePricingParams } from './params.ts';
import { periodLabel } from './period.ts';
import { heatmapAnswer } from './services/heatmap.ts';
import { pricingAnswer } from './services/pricing.ts';
import type { CacheOutcome } from './cache.ts';

export function createAnalyticsRouter(ctx: AnalyticsContext, openapi?: OpenApiRegistry): Router {
  const router = Router();
  if (openapi) registerAnalyticsPaths(openapi);
  const auth = authenticate(ctx.platform.keys);
  const clickhouse = ctx.platform.clickhouse;

  router.get('/analytics/pricing', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parsePricingParams(req.query);
    const mode = authOf(req).mode;
    const key = `pricing:${mode}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    const answer = await ctx.cache.getOrCompute(key, () =>
      pricingAnswer(clickhouse, params, mode === 'test'),
    );
    send(res, answer);
  });

  router.get('/analytics/heatmap', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parseHeatmapParams(req.query);
    const mode = authOf(req).mode;
    const b = params.bounds;
    const key = `heatmap:${mode}:${b.west},${b.south},${b.east},${b.north}:${params.type ?? 'all'}:${periodLabel(params.period)}`;
    const answer = await ctx.cache.getOrCompute(key, () =>
      heatmapAnswer(clickhouse, params, mode === 'test'),
    );
    send(res, answer);
  });

  return router;
}

/** X-Cache tells operators (and tests) whether the answer came from the cache (hit/miss/off). */
function send(res: Response, answer: { value: unknown; cache: CacheOutcome }): void {
  res.setHeader('X-Cache', answer.cache);
  res.setHeader('Cache-Control', 'private, max-age=0');
  res.json(answer.value);
}
