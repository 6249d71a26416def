// `listing_lookup` (migration 0004): the key columns of every listing sorted by id, kept by a
// materialized view from `listings`. Lookups by id read it first, then `listings` or
// `listing_states` by their own sort key. Nothing inserts into it but the view.
import { defineTable } from './table.ts';

export interface ListingLookupRow {
  listing_id: string;
  account_id: string;
  is_test: 0 | 1;
  /** UInt64 as a decimal string; '0' = unplaced. */
  h3_index: string;
  city: string;
  neighbourhood: string;
  property_type: string;
}

export const listingLookupTable = defineTable<ListingLookupRow>()('listing_lookup', [
  'listing_id',
  'account_id',
  'is_test',
  'h3_index',
  'city',
  'neighbourhood',
  'property_type',
]);
