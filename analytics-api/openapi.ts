// The analytics API's paths in the OpenAPI document (common/openapi/registry.ts): each operation's
// query parameters are the query object its route parses with (params.ts, estimate-params.ts) and
// its body the answer's schema (answers/). The rules behind the numbers are in docs/analytics.md.
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { heatmapAnswerSchema, heatmapCellSchema } from './answers/heatmap.ts';
import { pricingAnswerSchema } from './answers/pricing.ts';
import { MAX_BOUNDS_AREA_KM2 } from './geo/bounds.ts';
import { heatmapQuery, pricingQuery } from './params.ts';
import { GEOJSON_MEDIA_TYPE, heatmapGeoJsonSchema } from './services/heatmap-geojson.ts';

export const cacheHeader = {
  'X-Cache': 'hit, miss or off: whether the answer came from the analytics cache',
};

/** The lifecycle and estimate endpoints' tiers. */
export const tiers = 'Tiers business and enterprise (permission analytics:read).';

export function registerAnalyticsPaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'get',
    path: '/analytics/pricing',
    operationId: 'getPricing',
    summary: 'Prices by neighbourhood for a city and property type in a quarter',
    description: 'Live keys see live listings, test keys test listings. See docs/analytics.md.',
    tags: ['analytics'],
    query: pricingQuery,
    responses: { 200: { description: 'Pricing', schema: pricingAnswerSchema, headers: cacheHeader } },
    errors: [400, 503],
  });
  registry.register({
    method: 'get',
    path: '/analytics/heatmap',
    operationId: 'getHeatmap',
    summary: 'Demand per 500 m H3 cell (resolution 8) inside a bounding box',
    description: `Cells whose centre lies inside the box and that hold listings of the period. Boxes larger than ${MAX_BOUNDS_AREA_KM2} km² get a 400. See docs/analytics.md.`,
    tags: ['analytics'],
    query: heatmapQuery,
    responses: {
      200: {
        description: 'Heatmap',
        schema: heatmapAnswerSchema,
        alternatives: { [GEOJSON_MEDIA_TYPE]: heatmapGeoJsonSchema(heatmapCellSchema) },
        headers: cacheHeader,
      },
    },
    errors: [400, 503],
  });
}
