// Fixtures of the analytics integration tests (not a test file). Tests insert rows straight into the
// base tables `listings` and `view_events` (all columns named, as the stream would store them) in a
// year of their own (the lifecycle tests add status changes through the stream, lifecycle-fixtures.ts): claimYear() reserves a past year nobody uses (Redis SET NX + empty in ClickHouse),
// releaseYear() drops exactly that year's partitions again, so reruns and parallel files never meet.
import { randomUUID } from 'node:crypto';
import { afterAll } from 'vitest';
import { listingsTable } from '../../common/warehouse/listings.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import { viewEventsTable, type ViewEventRow } from '../../common/warehouse/view-events.ts';
import { env, testClickHouse, testRedis } from './api.ts';
import { storedListingRow } from './listing-rows.ts';

const FIRST_YEAR = 1975;
const LAST_YEAR = 2005;
/**
 * Tables partitioned by year that listings, views and status changes of a test year feed (the
 * aggregates' materialized views, the lifecycle tables of 0050/0052): emptied with the year.
 */
const yearlyTables = [
  'neighbourhood_quarter_stats',
  'cell_quarter_stats',
  'neighbourhood_quarter_prices',
  // Written by the price-summaries job from neighbourhood_quarter_prices: a summary left behind
  // could count as many listings as a later test's of the year.
  'neighbourhood_quarter_price_summaries',
  'listing_status_changes',
  'listing_states',
  'market_daily_flows',
  'market_exit_days',
  'market_cohort_days',
  'account_quarter_flows',
  'account_month_flows',
  'city_month_prices',
];

// Released after the file's tests. Registered here, when a test file imports this module (hooks
// registered from inside a beforeAll, as claimYear runs, are never called: the years used to stay).
const claimedYears: number[] = [];
afterAll(async () => {
  for (const year of claimedYears.splice(0)) await releaseYear(year);
});

/**
 * `free`, when given, must also hold for the year (e.g. nothing of a city and type before it);
 * `span` consecutive years are claimed together (the first is returned).
 */
export async function claimYear(free?: (year: number) => Promise<boolean>, span = 1): Promise<number> {
  const redis = await testRedis();
  const ch = testClickHouse();
  const claimKey = (year: number) => `${env.REDIS_KEY_PREFIX}test:analytics-year:${year}`;
  for (let attempt = 0; attempt < 100; attempt++) {
    const year = FIRST_YEAR + Math.floor(Math.random() * (LAST_YEAR - span + 1 - FIRST_YEAR + 1));
    const years = Array.from({ length: span }, (_, i) => year + i);
    const claimed: number[] = [];
    for (const y of years) {
      if ((await redis.set(claimKey(y), '1', 'EX', 1800, 'NX')) !== 'OK') break;
      claimed.push(y);
    }
    if (claimed.length < span) {
      if (claimed.length) await redis.del(...claimed.map(claimKey));
      continue;
    }
    const result = await ch.query({
      query: `SELECT
        (SELECT count() FROM listings WHERE listed_at >= {from:DateTime('UTC')} AND listed_at < {to:DateTime('UTC')}) +
        (SELECT count() FROM view_events WHERE viewed_at >= {from:DateTime('UTC')} AND viewed_at < {to:DateTime('UTC')}) +
        (SELECT count() FROM rent_comparables WHERE listed_at >= {from:DateTime('UTC')} AND listed_at < {to:DateTime('UTC')}) +
        (SELECT count() FROM system.parts WHERE database = currentDatabase() AND active
           AND table IN {tables:Array(String)} AND has({years:Array(String)}, partition)) AS rows`,
      query_params: {
        from: new Date(Date.UTC(year, 0, 1)),
        to: new Date(Date.UTC(year + span, 0, 1)),
        years: years.map(String),
        tables: yearlyTables,
      },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ rows: string }>();
    if (Number(row?.rows) === 0 && (!free || (await free(year + span - 1)))) {
      claimedYears.push(...years);
      return year;
    }
  }
  throw new Error('no free test year for analytics tests');
}

async function releaseYear(year: number): Promise<void> {
  const ch = testClickHouse();
  // listing_lookup (by id, no partitions; mv_listing_lookup) holds the year's listings too: their
  // rows go first, while `listings` still names them. Left behind, listing_lookup would stay ahead
  // of `listings` for good, and every stream fault test's check that the two match would time out.
  await ch.command({
    query: `DELETE FROM listing_lookup WHERE listing_id IN (
              SELECT listing_id FROM listings
              WHERE listed_at >= {from:DateTime('UTC')} AND listed_at < {to:DateTime('UTC')})`,
    query_params: { from: new Date(Date.UTC(year, 0, 1)), to: new Date(Date.UTC(year + 1, 0, 1)) },
    clickhouse_settings: { lightweight_deletes_sync: '2' },
  });
  for (let month = 1; month <= 12; month++) {
    const partition = year * 100 + month;
    // rent_comparables (mv_rent_comparables from listings) keeps the year's listings otherwise, and
    // the estimate tests of a later run claiming the year would count them twice.
    for (const table of ['listings', 'view_events', 'rent_comparables']) {
      await ch.command({
        query: 'ALTER TABLE {table:Identifier} DROP PARTITION {partition:UInt32}',
        query_params: { table, partition },
      });
    }
  }
  for (const table of yearlyTables) {
    await ch.command({
      query: 'ALTER TABLE {table:Identifier} DROP PARTITION {year:UInt16}',
      query_params: { table, year },
    });
  }
  await (await testRedis()).del(`${env.REDIS_KEY_PREFIX}test:analytics-year:${year}`);
}

export interface ListingRow {
  listing_id?: string;
  /** Default analytics-test. */
  account_id?: string;
  is_test: 0 | 1;
  listed_at: string;
  property_type: string;
  price_tzs: number;
  city: string;
  neighbourhood: string;
  h3_index?: string;
  bedrooms?: number;
}

export async function insertListings(rows: ListingRow[]): Promise<string[]> {
  const ids = rows.map((row) => row.listing_id ?? randomUUID());
  await insertRows(
    testClickHouse(),
    listingsTable,
    rows.map((row, i) =>
      storedListingRow({
        listing_id: ids[i]!,
        account_id: row.account_id ?? 'analytics-test',
        is_test: row.is_test,
        listed_at: row.listed_at,
        title: 'analytics fixture',
        description: 'analytics fixture',
        property_type: row.property_type,
        price_tzs: row.price_tzs,
        bedrooms: row.bedrooms ?? null,
        h3_index: row.h3_index ?? '0',
        city: row.city,
        neighbourhood: row.neighbourhood,
        location_source: row.h3_index ? 'coordinates' : 'none',
        _topic: 'analytics-test',
      }),
    ),
  );
  return ids;
}

export interface ViewRow {
  is_test: 0 | 1;
  viewed_at: string;
  property_type: string;
  city: string;
  neighbourhood: string;
  h3_index?: string;
  /** The viewed listing's account (market share); default '' (unknown). */
  listing_account_id?: string;
}

/** `count` identical view events per row. */
export async function insertViews(rows: (ViewRow & { count: number })[]): Promise<void> {
  const values = rows.flatMap((row) =>
    Array.from({ length: row.count }, (): ViewEventRow => ({
      event_id: randomUUID(),
      listing_id: randomUUID(),
      account_id: 'analytics-test',
      is_test: row.is_test,
      viewed_at: row.viewed_at,
      received_at: row.viewed_at,
      h3_index: row.h3_index ?? '0',
      city: row.city,
      neighbourhood: row.neighbourhood,
      property_type: row.property_type,
      listing_account_id: row.listing_account_id ?? '',
      _topic: 'analytics-test',
      _partition: 0,
      _offset: '0',
      _item: 0,
    })),
  );
  await insertRows(testClickHouse(), viewEventsTable, values);
}

/** Exact median by hand: the middle value, or the mean of the two middle values. */
export function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
