// The lifecycle analytics paths in the OpenAPI document: velocity, seasonality, market share. The
// rules behind the numbers are in docs/analytics.md, "Listing lifecycle metrics".
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { cachedAnswerOperation, tiers } from './openapi-operation.ts';
import { marketShareAnswerSchema, seasonalityAnswerSchema, velocityAnswerSchema } from './answers/market.ts';
import { pricingQuery, seasonalityQuery } from './params.ts';

export function registerMarketPaths(registry: OpenApiRegistry): void {
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/velocity',
      cacheScope: 'account',
      operationId: 'getVelocity',
      summary: 'How fast listings leave the market: days to rent, stock, absorption, Kaplan–Meier',
      description: `Live keys see live data, test keys test data. ${tiers} See docs/analytics.md.`,
      query: pricingQuery,
      answer: { description: 'Velocity', schema: velocityAnswerSchema },
      errors: [400, 503],
    }),
  );
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/seasonality',
      cacheScope: 'market',
      operationId: 'getSeasonality',
      summary: 'Monthly series of rents, new listings, views and days to rent, with a month-of-year index',
      description: `status: insufficient_history under 12 months (no index), provisional for 12–23, ok from 24. ${tiers} See docs/analytics.md.`,
      query: seasonalityQuery,
      answer: { description: 'Seasonality', schema: seasonalityAnswerSchema },
      errors: [400, 503],
    }),
  );
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/market-share',
      cacheScope: 'account',
      operationId: 'getMarketShare',
      summary:
        "The calling account's share of stock, new listings, rentals and views, against the anonymous rest",
      description:
        'Other accounts are never named or ranked; a market figure with fewer than 5 other accounts behind ' +
        'it, or where one other account holds more than 25 % of the rest, is null with suppressed: true ' +
        `(own counts always show). ${tiers} See docs/analytics.md.`,
      query: pricingQuery,
      answer: { description: 'Market share', schema: marketShareAnswerSchema },
      errors: [400, 503],
    }),
  );
}
