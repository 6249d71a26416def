// GET /analytics/heatmap?format=geojson: the same cells as a GeoJSON FeatureCollection (RFC 7946) of
// hexagon polygons with the cell's properties, so a map (the dashboard, any GIS tool) draws them
// without H3 code. Rings come from h3-js in GeoJSON order: [lng, lat], counter-clockwise, closed.
import { cellToBoundary } from 'h3-js';
import { z } from 'zod';
import type { HeatmapAnswer, HeatmapCell } from '../answers/heatmap.ts';

export const heatmapFormats = ['json', 'geojson'] as const;
export type HeatmapFormat = (typeof heatmapFormats)[number];

export const GEOJSON_MEDIA_TYPE = 'application/geo+json';

export interface HeatmapFeatureCollection {
  type: 'FeatureCollection';
  grid_size: HeatmapAnswer['grid_size'];
  features: {
    type: 'Feature';
    id: string;
    geometry: { type: 'Polygon'; coordinates: [number, number][][] };
    properties: HeatmapCell;
  }[];
}

const round6 = (value: number) => Math.round(value * 1e6) / 1e6;

export function heatmapGeoJson(answer: HeatmapAnswer): HeatmapFeatureCollection {
  return {
    type: 'FeatureCollection',
    grid_size: answer.grid_size, // a foreign member (RFC 7946 §6.1)
    features: answer.cells.map((cell) => ({
      type: 'Feature',
      id: cell.h3_index,
      geometry: {
        type: 'Polygon',
        coordinates: [cellToBoundary(cell.h3_index, true).map(([lng, lat]) => [round6(lng!), round6(lat!)])],
      },
      properties: cell,
    })),
  };
}

/** The FeatureCollection's shape in the OpenAPI document. */
export function heatmapGeoJsonSchema(cell: z.ZodType) {
  return z.object({
    type: z.literal('FeatureCollection'),
    grid_size: z.literal('500m'),
    features: z.array(
      z.object({
        type: z.literal('Feature'),
        id: z.string().describe('H3 resolution-8 cell (hex)'),
        geometry: z.object({
          type: z.literal('Polygon'),
          coordinates: z
            .array(z.array(z.array(z.number()).length(2)).min(4))
            .length(1)
            .describe('One closed ring of [lng, lat] vertices, counter-clockwise'),
        }),
        properties: cell,
      }),
    ),
  });
}
