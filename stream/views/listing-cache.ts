// Where a viewed listing is (cell, city, neighbourhood, type), from `listing_lookup` by primary key,
// with an in-process LRU in front. Misses are not cached: a view can arrive before its listing is
// stored, and the next batch should find it.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { listingLookupTable } from '../../common/warehouse/listing-lookup.ts';
import { defineQuery } from '../../common/warehouse/query.ts';
import { queryByIds } from '../sink/id-lookup.ts';

export interface ListingPlaceInfo {
  h3_index: string;
  city: string;
  neighbourhood: string;
  property_type: string;
  /** The listing's owner: views count towards its market share (view_events.listing_account_id). */
  account_id: string;
}

const placesQuery = defineQuery({
  name: 'listing_places',
  params: z.object({ ids: z.array(z.string()) }),
  row: z.object({
    id: z.string(),
    h3_index: z.string(),
    city: z.string(),
    neighbourhood: z.string(),
    property_type: z.string(),
    account_id: z.string(),
  }),
  sql: `SELECT toString(listing_id) AS id, toString(h3_index) AS h3_index, city, neighbourhood,
                  toString(property_type) AS property_type, account_id
           FROM ${listingLookupTable.name} WHERE listing_id IN {ids:Array(UUID)}
           LIMIT 1 BY listing_id`,
});

export function createListingCache(clickhouse: ClickHouseClient, maxEntries: number) {
  // Map iteration order is insertion order: re-inserting on hit makes the first key the LRU one.
  const cache = new Map<string, ListingPlaceInfo>();
  const stats = { hits: 0, misses: 0 };

  function remember(id: string, info: ListingPlaceInfo) {
    cache.delete(id);
    cache.set(id, info);
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  }

  return {
    stats,
    /** Info for each of `ids` (validated UUIDs) that is stored; unknown ids are absent. */
    async lookup(ids: string[]): Promise<Map<string, ListingPlaceInfo>> {
      const found = new Map<string, ListingPlaceInfo>();
      const missing: string[] = [];
      for (const id of new Set(ids)) {
        const hit = cache.get(id);
        if (hit) {
          stats.hits++;
          remember(id, hit);
          found.set(id, hit);
        } else missing.push(id);
      }
      stats.misses += missing.length;
      if (missing.length) {
        const rows = await queryByIds(clickhouse, missing, placesQuery);
        for (const { id, ...info } of rows) {
          remember(id, info);
          found.set(id, info);
        }
      }
      return found;
    },
  };
}

export type ListingCache = ReturnType<typeof createListingCache>;
