// The aggregate tables kept by materialized views (migrations 0010–0012). Nothing inserts into
// them but the views; the analytics queries read them with sum(…) … GROUP BY (SummingMergeTree).
import { defineTable } from './table.ts';

export type NeighbourhoodQuarterStatsRow = {
  is_test: 0 | 1;
  quarter: string;
  property_type: string;
  city: string;
  neighbourhood: string;
  listings: number;
  price_tzs_sum: number;
  views: number;
};
export const neighbourhoodQuarterStatsTable = defineTable<NeighbourhoodQuarterStatsRow>()(
  'neighbourhood_quarter_stats',
  ['is_test', 'quarter', 'property_type', 'city', 'neighbourhood', 'listings', 'price_tzs_sum', 'views'],
);

export type CellQuarterStatsRow = {
  is_test: 0 | 1;
  quarter: string;
  h3_index: string;
  property_type: string;
  listings: number;
  price_tzs_sum: number;
  views: number;
};
export const cellQuarterStatsTable = defineTable<CellQuarterStatsRow>()('cell_quarter_stats', [
  'is_test',
  'quarter',
  'h3_index',
  'property_type',
  'listings',
  'price_tzs_sum',
  'views',
]);

export type NeighbourhoodQuarterPricesRow = {
  is_test: 0 | 1;
  city: string;
  property_type: string;
  quarter: string;
  neighbourhood: string;
  price_tzs: number;
  listings: number;
};
export const neighbourhoodQuarterPricesTable = defineTable<NeighbourhoodQuarterPricesRow>()(
  'neighbourhood_quarter_prices',
  ['is_test', 'city', 'property_type', 'quarter', 'neighbourhood', 'price_tzs', 'listings'],
);
