// The analytics API's paths in the OpenAPI document (common/openapi/registry.ts). The rules behind
// the numbers are in docs/analytics.md.
import { z } from 'zod';
import { citySlugs } from '../common/domain/cities.ts';
import { propertyTypes } from '../common/domain/listing.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { BOUNDS_PATTERN, MAX_BOUNDS_AREA_KM2 } from './geo/bounds.ts';
import { MAX_YEAR, MIN_YEAR, PERIOD_PATTERN } from './period.ts';
import { trends } from './rules.ts';
import { GEOJSON_MEDIA_TYPE, heatmapFormats, heatmapGeoJsonSchema } from './services/heatmap-geojson.ts';

/** The `period` query parameter of every analytics endpoint: exactly what periodSchema accepts. */
export const periodParameter = {
  name: 'period',
  in: 'query' as const,
  description: `Quarter YYYY-Qn (UTC), ${MIN_YEAR}-Q1 to ${MAX_YEAR}-Q4; default: the current quarter`,
  schema: z.string().regex(new RegExp(PERIOD_PATTERN)),
};
const period = periodParameter;
const cacheHeader = { 'X-Cache': 'hit, miss or off: whether the answer came from the analytics cache' };

export const pricingResponseSchema = z.object({
  city: z.string().describe('City display name'),
  property_type: z.enum(propertyTypes),
  period: z.string().describe('YYYY-Qn'),
  summary: z.object({
    median_price_tzs: z.number().nullable().describe('Exact median; null when total_listings is 0'),
    avg_price_tzs: z.number().nullable(),
    min_price_tzs: z.number().nullable(),
    max_price_tzs: z.number().nullable(),
    total_listings: z.number().int(),
  }),
  by_neighborhood: z.array(
    z.object({
      name: z.string(),
      median_price: z.number().describe('Exact median price in TZS'),
      listing_count: z.number().int(),
      demand_score: z.number().describe('Views per listing ÷ market views per listing (1 = market average)'),
      trend: z.enum(trends),
    }),
  ),
});

const heatmapCellSchema = z.object({
  h3_index: z.string().describe('H3 resolution-8 cell (hex), for drawing the hexagon'),
  lat: z.number().describe('Cell centre'),
  lng: z.number().describe('Cell centre'),
  demand_score: z.number(),
  avg_price: z.number().describe('TZS'),
  listing_count: z.number().int(),
  views_per_listing: z.number(),
});

export const heatmapResponseSchema = z.object({
  grid_size: z.literal('500m'),
  cells: z.array(heatmapCellSchema),
});

export function registerAnalyticsPaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'get',
    path: '/analytics/pricing',
    operationId: 'getPricing',
    summary: 'Prices by neighbourhood for a city and property type in a quarter',
    description: 'Live keys see live listings, test keys test listings. See docs/analytics.md.',
    tags: ['analytics'],
    parameters: [
      { name: 'city', in: 'query', required: true, schema: z.enum(citySlugs) },
      { name: 'type', in: 'query', required: true, schema: z.enum(propertyTypes) },
      period,
    ],
    responses: { 200: { description: 'Pricing', schema: pricingResponseSchema, headers: cacheHeader } },
    errors: [400, 503],
  });
  registry.register({
    method: 'get',
    path: '/analytics/heatmap',
    operationId: 'getHeatmap',
    summary: 'Demand per 500 m H3 cell (resolution 8) inside a bounding box',
    description: `Cells whose centre lies inside the box and that hold listings of the period. Boxes larger than ${MAX_BOUNDS_AREA_KM2} km² get a 400. See docs/analytics.md.`,
    tags: ['analytics'],
    parameters: [
      {
        name: 'bounds',
        in: 'query',
        required: true,
        description:
          'minLng,minLat,maxLng,maxLat (west,south,east,north — GeoJSON bbox order), decimal degrees: ' +
          'longitudes -180..180 and latitudes -90..90, west < east (no antimeridian crossing), ' +
          `south < north, at most ${MAX_BOUNDS_AREA_KM2} km², and not so long and thin that its H3 covering ` +
          'would read more than 100,000 km². Any other box is a 400 invalid_parameter naming the rule.',
        schema: z.string().regex(new RegExp(BOUNDS_PATTERN)).meta({ format: 'bbox' }),
      },
      { name: 'type', in: 'query', schema: z.enum(propertyTypes) },
      period,
      {
        name: 'format',
        in: 'query',
        description: `json (default): {grid_size, cells}; geojson: a FeatureCollection of the hexagons (${GEOJSON_MEDIA_TYPE})`,
        schema: z.enum(heatmapFormats),
      },
    ],
    responses: {
      200: {
        description: 'Heatmap',
        schema: heatmapResponseSchema,
        alternatives: { [GEOJSON_MEDIA_TYPE]: heatmapGeoJsonSchema(heatmapCellSchema) },
        headers: cacheHeader,
      },
    },
    errors: [400, 503],
  });
}
