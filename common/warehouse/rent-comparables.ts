// `rent_comparables` (migration 0090): one row per placed listing, kept by mv_rent_comparables from
// `listings` and sorted for the estimate's lookup (mode, type, resolution-8 cell, listed_at). Only
// the view writes it; the estimate endpoint and the backtest read it.
import { defineTable, type DateTimeText } from './table.ts';

export type RentComparableRow = {
  is_test: 0 | 1;
  property_type: string;
  /** Resolution-8 H3 cell as a decimal UInt64 string (never 0 here). */
  h3_index: string;
  listed_at: DateTimeText;
  listing_id: string;
  account_id: string;
  city: string;
  latitude: number;
  longitude: number;
  bedrooms: number | null;
  bathrooms: number | null;
  area_sqm: number | null;
  price_tzs: number;
  /** cityHash64 of the ingest's duplicate criterion, as a decimal UInt64 string. */
  fingerprint: string;
};

export const rentComparablesTable = defineTable<RentComparableRow>()('rent_comparables', [
  'is_test',
  'property_type',
  'h3_index',
  'listed_at',
  'listing_id',
  'account_id',
  'city',
  'latitude',
  'longitude',
  'bedrooms',
  'bathrooms',
  'area_sqm',
  'price_tzs',
  'fingerprint',
]);
