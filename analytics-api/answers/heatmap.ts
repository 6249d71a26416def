// The heatmap answer (services/heatmap.ts): its types and its schemas in the OpenAPI document.
import { z } from 'zod';

export const heatmapCellSchema = z.object({
  h3_index: z.string().describe('H3 resolution-8 cell (hex), for drawing the hexagon'),
  lat: z.number().describe('Cell centre'),
  lng: z.number().describe('Cell centre'),
  demand_score: z.number(),
  avg_price: z.number().describe('TZS'),
  listing_count: z.number().int(),
  views_per_listing: z.number(),
});

export const heatmapAnswerSchema = z.object({
  grid_size: z.literal('500m'),
  cells: z.array(heatmapCellSchema),
});

export type HeatmapCell = z.infer<typeof heatmapCellSchema>;
export type HeatmapAnswer = z.infer<typeof heatmapAnswerSchema>;
