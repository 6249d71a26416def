// HTTP surface of the analytics API: each route declared once (common/http/route.ts) — its query,
// answer and errors for the OpenAPI document, its answer through the cache. The numbers are computed
// in services/; the rules are in rules.ts and docs/analytics.md.
import { Router } from 'express';
import { authenticate } from '../common/auth/authenticate.ts';
import { mountRoutes, registerRoutes, type Route } from '../common/http/route.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { heatmapAnswerSchema, heatmapCellSchema, type HeatmapAnswer } from './answers/heatmap.ts';
import { marketShareAnswerSchema, seasonalityAnswerSchema, velocityAnswerSchema } from './answers/market.ts';
import { pricingAnswerSchema } from './answers/pricing.ts';
import { cachedAnswerRoute, tiers, type AnalyticsDeps } from './cached-answer-route.ts';
import type { AnalyticsContext } from './context.ts';
import { estimateRoutes } from './estimate-routes.ts';
import { estimateQuota } from './estimate-quota.ts';
import { MAX_BOUNDS_AREA_KM2 } from './geo/bounds.ts';
import {
  heatmapQuery,
  parseHeatmapParams,
  parsePricingParams,
  parseSeasonalityParams,
  pricingQuery,
  seasonalityQuery,
} from './params.ts';
import { periodLabel } from './period.ts';
import { heatmapAnswer } from './services/heatmap.ts';
import { GEOJSON_MEDIA_TYPE, heatmapGeoJson, heatmapGeoJsonSchema } from './services/heatmap-geojson.ts';
import { marketShareAnswer } from './services/market-share.ts';
import { pricingAnswer } from './services/pricing.ts';
import { seasonalityAnswer } from './services/seasonality.ts';
import { velocityAnswer } from './services/velocity.ts';

const pricing = cachedAnswerRoute({
  path: '/analytics/pricing',
  cacheScope: 'market',
  operationId: 'getPricing',
  summary: 'Prices by neighbourhood for a city and property type in a quarter',
  description: 'Live keys see live listings, test keys test listings. See docs/analytics.md.',
  query: { schema: pricingQuery, parse: (raw) => parsePricingParams(raw) },
  answer: { description: 'Pricing', schema: pricingAnswerSchema },
  errors: [400, 503],
  answerWith({ auth: { mode, account_id: account }, query: params }, { ctx }) {
    const key = `pricing:${mode}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    return ctx.cache.getOrCompute({ key, perAccount: false }, account, () =>
      pricingAnswer(ctx.pricing, params, mode === 'test'),
    );
  },
});

const heatmap = cachedAnswerRoute({
  path: '/analytics/heatmap',
  cacheScope: 'market',
  operationId: 'getHeatmap',
  summary: 'Demand per 500 m H3 cell (resolution 8) inside a bounding box',
  description: `Cells whose centre lies inside the box and that hold listings of the period. Boxes larger than ${MAX_BOUNDS_AREA_KM2} km² get a 400. See docs/analytics.md.`,
  query: { schema: heatmapQuery, parse: (raw) => parseHeatmapParams(raw) },
  answer: {
    description: 'Heatmap',
    schema: heatmapAnswerSchema,
    alternatives: { [GEOJSON_MEDIA_TYPE]: heatmapGeoJsonSchema(heatmapCellSchema) },
  },
  errors: [400, 503],
  async answerWith({ auth: { mode, account_id: account }, query: { format, ...params }, res }, { ctx }) {
    const b = params.bounds;
    const key = `heatmap:${mode}:${b.west},${b.south},${b.east},${b.north}:${params.type ?? 'all'}:${periodLabel(params.period)}`;
    const answer = await ctx.cache.getOrCompute({ key, perAccount: false }, account, () =>
      heatmapAnswer(ctx.heatmap, params, mode === 'test'),
    );
    if (format !== 'geojson') return answer;
    // One cached answer per box; the GeoJSON is drawn from it on the way out.
    res.type(GEOJSON_MEDIA_TYPE);
    return { value: heatmapGeoJson(answer.value as HeatmapAnswer), cache: answer.cache };
  },
});

// Listing lifecycle metrics (docs/analytics.md): velocity, seasonality, market share.
const velocity = cachedAnswerRoute({
  path: '/analytics/velocity',
  cacheScope: 'account',
  operationId: 'getVelocity',
  summary: 'How fast listings leave the market: days to rent, stock, absorption, Kaplan–Meier',
  description: `Live keys see live data, test keys test data. ${tiers} See docs/analytics.md.`,
  query: { schema: pricingQuery, parse: (raw) => parsePricingParams(raw) },
  answer: { description: 'Velocity', schema: velocityAnswerSchema },
  errors: [400, 503],
  answerWith({ auth: { mode, account_id: account }, query: params }, { ctx }) {
    // Per account: what the market-share rule withholds depends on the calling account.
    const key = `velocity:${mode}:${account}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    return ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
      velocityAnswer(ctx.platform.clickhouse, params, mode === 'test', account),
    );
  },
});

const seasonality = cachedAnswerRoute({
  path: '/analytics/seasonality',
  cacheScope: 'market',
  operationId: 'getSeasonality',
  summary: 'Monthly series of rents, new listings, views and days to rent, with a month-of-year index',
  description: `status: insufficient_history under 12 months (no index), provisional for 12–23, ok from 24. ${tiers} See docs/analytics.md.`,
  query: { schema: seasonalityQuery, parse: (raw) => parseSeasonalityParams(raw) },
  answer: { description: 'Seasonality', schema: seasonalityAnswerSchema },
  errors: [400, 503],
  answerWith({ auth: { mode, account_id: account }, query: params }, { ctx }) {
    // Per account: what the market-share rule withholds depends on the calling account.
    const key = `seasonality:${mode}:${account}:${params.city}:${params.type}:${params.months}:${params.end}`;
    return ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
      seasonalityAnswer(ctx.platform.clickhouse, params, mode === 'test', account),
    );
  },
});

const marketShare = cachedAnswerRoute({
  path: '/analytics/market-share',
  cacheScope: 'account',
  operationId: 'getMarketShare',
  summary:
    "The calling account's share of stock, new listings, rentals and views, against the anonymous rest",
  description:
    'Other accounts are never named or ranked; a market figure with fewer than 5 other accounts behind ' +
    'it, or where one other account holds more than 25 % of the rest, is null with suppressed: true ' +
    `(own counts always show). ${tiers} See docs/analytics.md.`,
  query: { schema: pricingQuery, parse: (raw) => parsePricingParams(raw) },
  answer: { description: 'Market share', schema: marketShareAnswerSchema },
  errors: [400, 503],
  answerWith({ auth: { mode, account_id: account }, query: params }, { ctx }) {
    // Per account: one account's answer holds its own counts.
    const key = `market-share:${mode}:${account}:${params.city}:${params.type}:${periodLabel(params.period)}`;
    return ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
      marketShareAnswer(ctx.platform.clickhouse, params, mode === 'test', account),
    );
  },
});

/** Every analytics route, in the order they are mounted and documented. */
export const analyticsRoutes: Route<AnalyticsDeps>[] = [
  pricing,
  heatmap,
  velocity,
  seasonality,
  marketShare,
  ...estimateRoutes, // rent estimates (docs/analytics.md, "Rent estimates")
];

export function createAnalyticsRouter(ctx: AnalyticsContext, openapi?: OpenApiRegistry): Router {
  const router = Router();
  if (openapi) registerRoutes(openapi, analyticsRoutes);
  const estimates = estimateQuota(ctx.platform.redis, ctx.platform.env.REDIS_KEY_PREFIX);
  mountRoutes(router, authenticate(ctx.platform.keys), analyticsRoutes, { ctx, estimateQuota: estimates });
  return router;
}
