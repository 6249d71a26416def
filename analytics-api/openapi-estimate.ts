// The rent estimate paths in the OpenAPI document: a point's estimate (contract) and a stored
// listing's for its owner. The method and the backtest behind the numbers: docs/analytics.md,
// "Rent estimates".
import { z } from 'zod';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { cachedAnswerOperation, tiers } from './openapi-operation.ts';
import { estimateAnswerSchema, listingEstimateAnswerSchema } from './answers/estimate.ts';
import { estimateQuery, listingEstimateQuery } from './estimate-params.ts';

export function registerEstimatePaths(registry: OpenApiRegistry): void {
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/estimate',
      cacheScope: 'account',
      operationId: 'getRentEstimate',
      summary: 'Asking-rent estimate for a unit at a point, with its comparables and measured accuracy',
      description:
        'Searched from the centre of the point’s resolution-8 H3 cell (subject.search_center): every ' +
        'point of a cell gets the same answer. Comparables of the same type and mode (±1 bedroom, ' +
        'floor area within 1.5×), nearest first, widening 1 → 2 → 5 → 10 km over 90, then 365 days ' +
        'until 5 are found; 422 insufficient_comparables (details.searched) when none holds 5. ' +
        'Other accounts’ comparables carry no listing_id and only the band of their distance ' +
        '(distance_band 0-1, 1-2, 2-5 or 5-10 km; distance_km its upper bound); your own carry their ' +
        'id and distance. Each account and mode may ask a limited number of distinct cells per UTC ' +
        'day (business 200, enterprise 1,000; the same cell again is free): past it, 429 ' +
        `quota_exceeded (details.quota estimate_cells_per_day). ${tiers} See docs/analytics.md.`,
      query: estimateQuery,
      answer: { description: 'Estimate', schema: estimateAnswerSchema },
      errors: [400, 422, 503],
    }),
  );
  registry.register(
    cachedAnswerOperation({
      path: '/listings/{listing_id}/estimate',
      cacheScope: 'account',
      operationId: 'getListingRentEstimate',
      summary:
        'The rent estimate of one of your listings, and whether its asking rent is over, within or under',
      description:
        'From the other listings only (never the listing itself nor any listing with its fingerprint), ' +
        'searched from the listing’s position; other accounts’ comparables as distance bands. ' +
        `Owning account only (others get 404), keys of the listing's mode (test_mode=true for a live key's test listings). ${tiers}`,
      parameters: [{ name: 'listing_id', in: 'path', schema: z.string() }],
      query: listingEstimateQuery,
      answer: { description: 'Estimate', schema: listingEstimateAnswerSchema },
      errors: [400, 404, 422, 503],
    }),
  );
}
