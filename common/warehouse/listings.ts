// `listings`: one row per stored listing (migrations 0001, 0006, 0008). Read `v_current_listings`.
import { defineTable, type DateTimeText, type Provenance } from './table.ts';

export type ListingRow = Provenance & {
  listing_id: string;
  account_id: string;
  batch_id: string;
  is_test: 0 | 1;
  listed_at: DateTimeText;
  stored_at: DateTimeText;
  title: string;
  description: string;
  property_type: string;
  price: number;
  currency: string;
  price_tzs: number;
  fx_rate_to_tzs: number;
  bedrooms: number | null;
  bathrooms: number | null;
  area_sqm: number | null;
  address: string;
  latitude: number | null;
  longitude: number | null;
  amenities: string[];
  images: string[];
  video_url: string;
  whatsapp_number: string;
  location_id: string | null;
  external_id: string;
  /** The resolution-8 H3 cell as a decimal UInt64 string; '0' = unplaced. */
  h3_index: string;
  city: string;
  neighbourhood: string;
  neighbourhood_id: string | null;
  location_source: 'none' | 'location_id' | 'coordinates' | 'address';
  version: number;
};

export const listingsTable = defineTable<ListingRow>()('listings', [
  'listing_id',
  'account_id',
  'batch_id',
  'is_test',
  'listed_at',
  'stored_at',
  'title',
  'description',
  'property_type',
  'price',
  'currency',
  'price_tzs',
  'fx_rate_to_tzs',
  'bedrooms',
  'bathrooms',
  'area_sqm',
  'address',
  'latitude',
  'longitude',
  'amenities',
  'images',
  'video_url',
  'whatsapp_number',
  'location_id',
  'external_id',
  'h3_index',
  'city',
  'neighbourhood',
  'neighbourhood_id',
  'location_source',
  'version',
  '_topic',
  '_partition',
  '_offset',
  '_item',
]);
