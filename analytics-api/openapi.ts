// The analytics API's paths in the OpenAPI document (common/openapi/registry.ts): each operation's
// query parameters are the query object its route parses with (params.ts, estimate-params.ts) and
// its body the answer's schema (answers/). The rules behind the numbers are in docs/analytics.md.
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { heatmapAnswerSchema, heatmapCellSchema } from './answers/heatmap.ts';
import { pricingAnswerSchema } from './answers/pricing.ts';
import { cachedAnswerOperation } from './openapi-operation.ts';
import { MAX_BOUNDS_AREA_KM2 } from './geo/bounds.ts';
import { heatmapQuery, pricingQuery } from './params.ts';
import { GEOJSON_MEDIA_TYPE, heatmapGeoJsonSchema } from './services/heatmap-geojson.ts';

export function registerAnalyticsPaths(registry: OpenApiRegistry): void {
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/pricing',
      cacheScope: 'market',
      operationId: 'getPricing',
      summary: 'Prices by neighbourhood for a city and property type in a quarter',
      description: 'Live keys see live listings, test keys test listings. See docs/analytics.md.',
      query: pricingQuery,
      answer: { description: 'Pricing', schema: pricingAnswerSchema },
      errors: [400, 503],
    }),
  );
  registry.register(
    cachedAnswerOperation({
      path: '/analytics/heatmap',
      cacheScope: 'market',
      operationId: 'getHeatmap',
      summary: 'Demand per 500 m H3 cell (resolution 8) inside a bounding box',
      description: `Cells whose centre lies inside the box and that hold listings of the period. Boxes larger than ${MAX_BOUNDS_AREA_KM2} km² get a 400. See docs/analytics.md.`,
      query: heatmapQuery,
      answer: {
        description: 'Heatmap',
        schema: heatmapAnswerSchema,
        alternatives: { [GEOJSON_MEDIA_TYPE]: heatmapGeoJsonSchema(heatmapCellSchema) },
      },
      errors: [400, 503],
    }),
  );
}
