// Seeds the listing lifecycle of the analytics benchmark database (bench/analytics.ts): for every
// seeded listing, generated INSIDE ClickHouse from its id, whether and how it left the market —
// 60 % leave (of those 70 % rented, 25 % withdrawn, 5 % expired after 60 days) after a long-tailed
// number of days (median ~3 weeks), unless that day is still to come. The rows go into
// listing_status_changes as the stream would write them (transition exit), so the materialized
// views of 0050/0052 fill listing_states and the market aggregates exactly as in production.
import type { ClickHouseClient } from '@clickhouse/client';
import { tableOps, type TableOps } from './table-ops.ts';

export const lifecycleTables = [
  'listing_status_changes',
  'listing_states',
  'market_daily_flows',
  'market_exit_days',
  'market_cohort_days',
  'account_quarter_flows',
  'account_area_stock',
  'account_month_flows',
  'city_month_prices',
];

// h = a per-listing hash; days on market ~ 3 · exp(U·4.6) − 2 for withdrawals/rentals (1 … ~300 days).
const exits = `
  SELECT *, toDateTime(listed_at + toIntervalSecond(toUInt32(days * 86400 + h % 86400))) AS at
  FROM (
    SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
      cityHash64(listing_id) AS h,
      multiIf(h % 100 < 42, 'rented', h % 100 < 57, 'withdrawn', h % 100 < 60, 'expired', '') AS outcome,
      if(outcome = 'expired', 60, toUInt32(greatest(1, 3 * exp((intDiv(h, 256) % 1000) / 1000 * 4.6) - 2))) AS days
    FROM listings
    WHERE {from:UInt64} <= cityHash64(listing_id) % {parts:UInt64} AND cityHash64(listing_id) % {parts:UInt64} < {to:UInt64}
  )
  WHERE outcome != ''`;

export async function seedLifecycle(
  ch: ClickHouseClient,
  log: (m: string) => void,
  ops: TableOps = tableOps(ch),
): Promise<void> {
  const parts = 5;
  for (let part = 0; part < parts; part++) {
    const t0 = performance.now();
    await ch.command({
      query: `INSERT INTO listing_status_changes (listing_id, account_id, is_test, external_id, listed_at,
                property_type, city, neighbourhood, status, previous_status, changed_at, recorded_at, source,
                transition, spell_started_at, exited_at, exit_days, version)
              SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
                outcome, 'active', at, at, if(outcome = 'expired', 'expiry', 'api'), 'exit', listed_at, at, days, 1
              FROM (${exits})
              WHERE at <= now()`,
      query_params: { from: part, to: part + 1, parts },
    });
    log(`listing_status_changes part ${part + 1}/${parts} (${Math.round(performance.now() - t0)} ms)`);
  }
  for (const table of lifecycleTables.slice(1)) await ops.optimize(table);
}
