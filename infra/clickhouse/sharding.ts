// How each table of the migrations lives on a sharded cluster (infra/clickhouse/README.md,
// "Shards"). The migrations stay written for one server; topology.ts turns each statement into
// its cluster form with this map: a sharded table becomes `<name>_local` on every shard plus a
// Distributed table `<name>` over them, so every query and every writer keeps the names of the
// README's schema.
//
// The keys keep every query correct:
// - Everything about one listing (its versions, lookup row, status history and state, views,
//   image checks and analyses, comparables) is on the shard of cityHash64(listing_id). FINAL,
//   argMax and the v_current_listings join then only ever meet rows of one shard, so the per-shard
//   answers add up to the single-server one.
// - The aggregates kept by materialized views hold, on each shard, the sums of that shard's
//   listings and views; readers always sum() / merge them per key (quantileExactWeighted of
//   (price, count) rows included), which is the same across shards as across parts. They have no
//   sharding key: only their views write them, shard by shard.
// - Operational tables are spread by their own identity so their readers' groups stay on one
//   shard: key usage by (account, key) for v_api_key_usage_daily's argMax per key and day.
// - `everyShard`: small dimension tables, a full copy on each shard (the migration runner loads
//   locations into each), so a join with them runs on each shard with its local copy.

export type Placement = { kind: 'sharded'; key: string } | { kind: 'aggregate' } | { kind: 'everyShard' };

const byListing: Placement = { kind: 'sharded', key: 'cityHash64(listing_id)' };
const aggregate: Placement = { kind: 'aggregate' };

export const placements: Record<string, Placement> = {
  listings: byListing,
  listing_lookup: byListing,
  view_events: byListing,
  image_checks: byListing,
  listing_images: byListing,
  listing_status_changes: byListing,
  listing_states: byListing,
  rent_comparables: byListing,

  neighbourhood_quarter_stats: aggregate,
  cell_quarter_stats: aggregate,
  neighbourhood_quarter_prices: aggregate,
  market_daily_flows: aggregate,
  market_exit_days: aggregate,
  market_cohort_days: aggregate,
  account_quarter_flows: aggregate,
  city_month_prices: aggregate,
  account_area_stock: aggregate,
  account_month_flows: aggregate,
  // A photo match filed under the earlier listing, written by its view on the shard of the later
  // listing (the one whose analysis found it): all rows of one match come from that one row of
  // listing_images, so they stay on one shard and FINAL still collapses them; a reader of one
  // listing's matches gets them from every shard through the Distributed table.
  listing_image_reuses: aggregate,

  // Messages the stream could not store: spread by their Kafka position (a retried insert of the
  // same messages goes to the same shards, where its deduplication token applies).
  quarantine: { kind: 'sharded', key: 'cityHash64(_topic, _partition, _offset)' },
  api_key_usage_daily: { kind: 'sharded', key: 'cityHash64(account_id, key_id)' },
  webhook_deliveries: { kind: 'sharded', key: 'cityHash64(delivery_id)' },
  key_audit_events: { kind: 'sharded', key: 'cityHash64(event_id)' },
  // One backtest run's rows together: the estimate reads the latest run's segments.
  estimate_accuracy: { kind: 'sharded', key: 'cityHash64(run_id)' },
  // Every version of one pricing group's summary rows on one shard, so argMax per key meets them all.
  neighbourhood_quarter_price_summaries: {
    kind: 'sharded',
    key: 'cityHash64(is_test, city, property_type, quarter)',
  },

  locations: { kind: 'everyShard' },
};

/** The placement of `table`; a table the map does not know is a mistake of a new migration. */
export function placementOf(table: string): Placement {
  const placement = placements[table];
  if (!placement)
    throw new Error(
      `table ${table} has no placement in infra/clickhouse/sharding.ts: decide how it is sharded ` +
        'before it can be created on a cluster',
    );
  return placement;
}

export const localName = (table: string): string => `${table}_local`;
