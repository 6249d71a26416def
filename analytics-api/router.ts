// HTTP surface of the analytics API: authenticate, validate, answer through the cache. The numbers
// are computed in services/; the rules are in rules.ts and docs/analytics.md.
import { Router } from 'express';
import { authenticate, authOf, requirePermission } from '../common/auth/authenticate.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import type { HeatmapAnswer } from './answers/heatmap.ts';
import type { AnalyticsContext } from './context.ts';
import { addEstimateRoutes } from './estimate-routes.ts';
import { registerAnalyticsPaths } from './openapi.ts';
import { registerEstimatePaths } from './openapi-estimate.ts';
import { registerMarketPaths } from './openapi-market.ts';
import { parseHeatmapParams, parsePricingParams, parseSeasonalityParams } from './params.ts';
import { periodLabel } from './period.ts';
import { heatmapAnswer } from './services/heatmap.ts';
import { GEOJSON_MEDIA_TYPE, heatmapGeoJson } from './services/heatmap-geojson.ts';
import { marketShareAnswer } from './services/market-share.ts';
import { pricingAnswer } from './services/pricing.ts';
import { seasonalityAnswer } from './services/seasonality.ts';
import { velocityAnswer } from './services/velocity.ts';
import { send } from './send-answer.ts';

export function createAnalyticsRouter(ctx: AnalyticsContext, openapi?: OpenApiRegistry): Router {
  const router = Router();
  if (openapi) {
    registerAnalyticsPaths(openapi);
    registerMarketPaths(openapi);
    registerEstimatePaths(openapi);
  }
  const auth = authenticate(ctx.platform.keys);
  const clickhouse = ctx.platform.clickhouse;

  router.get('/analytics/pricing', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parsePricingParams(req.query);
    const { mode, account_id: account } = authOf(req);
    const key = `pricing:${mode}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    const answer = await ctx.cache.getOrCompute({ key, perAccount: false }, account, () =>
      pricingAnswer(ctx.pricing, params, mode === 'test'),
    );
    send(res, answer, 'market');
  });

  router.get('/analytics/heatmap', auth, requirePermission('analytics:read'), async (req, res) => {
    const { format, ...params } = parseHeatmapParams(req.query);
    const { mode, account_id: account } = authOf(req);
    const b = params.bounds;
    const key = `heatmap:${mode}:${b.west},${b.south},${b.east},${b.north}:${params.type ?? 'all'}:${periodLabel(params.period)}`;
    const answer = await ctx.cache.getOrCompute({ key, perAccount: false }, account, () =>
      heatmapAnswer(ctx.heatmap, params, mode === 'test'),
    );
    // One cached answer per box; the GeoJSON is drawn from it on the way out.
    if (format === 'geojson') {
      res.type(GEOJSON_MEDIA_TYPE);
      send(res, { value: heatmapGeoJson(answer.value as HeatmapAnswer), cache: answer.cache }, 'market');
    } else {
      send(res, answer, 'market');
    }
  });

  // Listing lifecycle metrics (docs/analytics.md): velocity, seasonality, market share.
  router.get('/analytics/velocity', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parsePricingParams(req.query);
    const { mode, account_id: account } = authOf(req);
    // Per account: what the market-share rule withholds depends on the calling account.
    const key = `velocity:${mode}:${account}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    send(
      res,
      await ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
        velocityAnswer(clickhouse, params, mode === 'test', account),
      ),
      'account',
    );
  });

  router.get('/analytics/seasonality', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parseSeasonalityParams(req.query);
    const { mode, account_id: account } = authOf(req);
    // Per account: what the market-share rule withholds depends on the calling account.
    const key = `seasonality:${mode}:${account}:${params.city}:${params.type}:${params.months}:${params.end}`;
    send(
      res,
      await ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
        seasonalityAnswer(clickhouse, params, mode === 'test', account),
      ),
      'market',
    );
  });

  router.get('/analytics/market-share', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = parsePricingParams(req.query);
    const { mode, account_id: account } = authOf(req);
    // Per account: one account's answer holds its own counts.
    const key = `market-share:${mode}:${account}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    send(
      res,
      await ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
        marketShareAnswer(clickhouse, params, mode === 'test', account),
      ),
      'account',
    );
  });

  addEstimateRoutes(router, ctx, auth); // rent estimates (docs/analytics.md, "Rent estimates")

  return router;
}
