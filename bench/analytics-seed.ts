// Seeds the analytics benchmark database (bench/analytics.ts): listings and view events generated
// INSIDE ClickHouse (INSERT … SELECT from numbers()), placed on real H3 resolution-8 cells around the
// neighbourhood centres of the locations dataset. Node computes the candidate cells once with h3-js
// (the same library as the stream) into a small `bench_cells` table that the generator joins.
//
// Listings follow a price model with the structure real asking rents have, so the rent estimate's
// backtest (stream/estimate/backtest.ts) means something on this data (LISTING_MODEL, below):
//   rent = type rent × city factor × place level × cell factor × (floor area / type's typical)^0.7
//          × 7 %-a-year trend × exp(0.2 z)
// - place level: each neighbourhood has its own (lognormal, σ 0.35: Masaki is not Mbagala); a cell
//   takes the level of the neighbourhood it lies in (nearest relative to radius, within 1.5 radii,
//   as the stream places listings), else the city's periphery level (σ 0.2 around 0.8);
// - cell factor: micro-location, lognormal σ 0.12 per resolution-8 cell;
// - bedrooms by type (apartments 1–4, mostly 2; houses 2–6; studios 0; rooms 1; commercial and land
//   none), bathrooms from bedrooms, floor area from type and bedrooms (lognormal σ 0.22; 25 % of
//   listings do not state it, but it still drives their rent);
// - the trend: rents rise 7 % a year, so older asking rents are lower;
// - z: the unit's own quality (standard normal, Irwin–Hall), what no comparable can know.
// Coordinates are the cell centre jittered by up to ±0.0018° (~200 m, inside the cell).
import type { ClickHouseClient } from '@clickhouse/client';
import { citySlugs, type CitySlug } from '../common/domain/cities.ts';
import { cellTable } from './analytics-cells.ts';

/** Version of the listing model above; a database seeded with another is re-seeded (listings only). */
export const LISTING_MODEL = 2;
import { lifecycleTables, seedLifecycle } from './lifecycle-seed.ts';
import { tableOps, type TableOps } from './table-ops.ts';

// Share of listings per city, and a price factor per city (Dar and Zanzibar dearest).
const cityWeights: Record<CitySlug, [number, number]> = {
  dar_es_salaam: [0.4, 1.3],
  arusha: [0.12, 1.1],
  mwanza: [0.1, 0.9],
  dodoma: [0.08, 0.9],
  mbeya: [0.06, 0.8],
  tanga: [0.05, 0.8],
  zanzibar: [0.07, 1.2],
  morogoro: [0.05, 0.8],
  bagamoyo: [0.03, 0.85],
  iringa: [0.04, 0.75],
};
// Property types (enum order of 0001) with share and median monthly rent in TZS.
const types: [string, number, number][] = [
  ['apartment', 0.4, 800_000],
  ['house', 0.25, 1_500_000],
  ['studio', 0.12, 350_000],
  ['room', 0.13, 150_000],
  ['commercial', 0.07, 3_000_000],
  ['land', 0.03, 500_000],
];
const DAYS = 730; // listings and views spread over the last two years

const cumulative = (weights: number[]) =>
  weights.map((_, i) => weights.slice(0, i + 1).reduce((a, b) => a + b, 0));

/**
 * A row generator over numbers({start}, {count}): city, cell, type, price (log-normal-ish), time,
 * mode. Static SQL: the seed offset, the dense share and the tables of weights travel as the
 * parameters of generatorParams(); this constant text is interpolated into both INSERTs below.
 */
const generator = `
    SELECT *,
      number + {seed_offset:UInt64} AS seed,
      arrayFirstIndex(x -> x >= (intHash64(seed * 3 + 1) % 1000000) / 1000000, {city_cum:Array(Float64)}) AS ci,
      if(intHash64(seed * 5 + 2) % 100 < {dense_percent:UInt8},
         {nb_off:Array(UInt32)}[ci] + intHash64(seed * 7 + 3) % {nb_cnt:Array(UInt32)}[ci],
         {city_off:Array(UInt32)}[ci] + intHash64(seed * 11 + 4) % {city_cnt:Array(UInt32)}[ci]) AS cell_raw,
      toUInt64(cell_raw) AS cell_id,
      arrayFirstIndex(x -> x >= (intHash64(seed * 13 + 5) % 1000000) / 1000000, {type_cum:Array(Float64)}) AS ti,
      -- Irwin–Hall sum of 4 uniforms ≈ normal; exp(0.45 z) gives the long right tail of rents.
      round({type_rent:Array(Float64)}[ti] * {city_price:Array(Float64)}[ci]
        * exp(0.45 * ((intHash64(seed * 17 + 6) % 10000 + intHash64(seed * 19 + 7) % 10000
          + intHash64(seed * 23 + 8) % 10000 + intHash64(seed * 29 + 9) % 10000) / 10000 - 2) * 1.732) / 1000) * 1000 AS price,
      now() - intHash64(seed * 31 + 10) % ({days:UInt32} * 86400) AS at,
      toUInt8(intHash64(seed * 37 + 11) % 100 < 2) AS is_test
    FROM numbers({start:UInt64}, {count:UInt64})`;

function generatorParams(
  layout: ReturnType<typeof cellTable>['layout'],
  seedOffset: number,
  densePercent: number,
) {
  return {
    seed_offset: seedOffset,
    dense_percent: densePercent,
    city_cum: cumulative(citySlugs.map((c) => cityWeights[c][0])).map((x) => Math.min(x, 1)),
    type_cum: cumulative(types.map((t) => t[1])).map((x) => Math.min(x, 1)),
    nb_off: layout.nbOff,
    nb_cnt: layout.nbCnt,
    city_off: layout.cityOff,
    city_cnt: layout.cityCnt,
    type_rent: types.map((t) => t[2]),
    city_price: citySlugs.map((c) => cityWeights[c][1]),
    days: DAYS,
    type_names: types.map((t) => t[0]),
  };
}

/** Tables that stored listings feed (the listing itself and its materialized views' targets). */
const listingTables = [
  'listings',
  'listing_lookup',
  'neighbourhood_quarter_prices',
  'listing_states',
  'listing_status_changes',
  'market_exit_days',
  'market_cohort_days',
  'city_month_prices',
  'account_area_stock',
  'rent_comparables',
];
/** Aggregates fed by both listings and views, and the views' materialized views into them. */
const mixedTables: Record<string, string> = {
  neighbourhood_quarter_stats: 'mv_neighbourhood_quarter_stats_from_views',
  cell_quarter_stats: 'mv_cell_quarter_stats_from_views',
  market_daily_flows: 'mv_market_daily_flows_from_views',
  account_quarter_flows: 'mv_account_quarter_flows_from_views',
  account_month_flows: 'mv_account_month_flows_from_views',
};

type Log = (message: string) => void;

/** Listings and views from scratch. */
export async function seed(
  ch: ClickHouseClient,
  listings: number,
  views: number,
  log: Log,
  ops = tableOps(ch),
) {
  for (const table of new Set([
    ...listingTables,
    ...lifecycleTables,
    ...Object.keys(mixedTables),
    'view_events',
  ])) {
    await ops.truncate(table);
  }
  const layout = await cellsTable(ch, log);
  await insertListings(ch, layout, listings, log);
  await seedLifecycle(ch, log, ops); // status changes of the listings (bench/lifecycle-seed.ts)
  await insertViews(ch, layout, views, log);
  await settle(ops);
}

/**
 * Listings again (a new LISTING_MODEL), keeping the 100 M views: the listing-fed tables are emptied
 * and refilled by the inserts; the aggregates that views feed too are emptied and their view part
 * recomputed from view_events with the views' own materialized-view SELECT.
 */
export async function reseedListings(ch: ClickHouseClient, listings: number, log: Log) {
  for (const table of new Set([...listingTables, ...lifecycleTables, ...Object.keys(mixedTables)])) {
    await ch.command({ query: 'TRUNCATE TABLE {table:Identifier}', query_params: { table } });
  }
  const layout = await cellsTable(ch, log);
  await insertListings(ch, layout, listings, log);
  await seedLifecycle(ch, log); // status changes of the new listings (bench/lifecycle-seed.ts)
  for (const [table, view] of Object.entries(mixedTables)) {
    const t0 = performance.now();
    const result = await ch.query({
      query: `SELECT as_select FROM system.tables WHERE database = currentDatabase() AND name = {view:String}`,
      query_params: { view },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ as_select: string }>();
    if (!row) throw new Error(`materialized view ${view} not found`);
    // The view's columns name the target's, as the view itself inserts them (by name).
    const columns = await ch.query({
      query: `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = {view:String}
              ORDER BY position`,
      query_params: { view },
      format: 'JSONEachRow',
    });
    const names = (await columns.json<{ name: string }>()).map((c) => c.name);
    // The view's own SELECT (text from the server's catalogue, not input) over all stored views.
    // account_quarter_flows groups 100 M views by listing owner: spill the aggregation to disk
    // rather than exceed the server's per-query memory.
    await ch.command({
      query: `INSERT INTO ${table} (${names.join(', ')}) ${row.as_select}`,
      clickhouse_settings: { max_bytes_before_external_group_by: '1000000000', max_threads: 2 },
    });
    log(`${table}: views recomputed (${Math.round(performance.now() - t0)} ms)`);
  }
  await settle(tableOps(ch));
}

/** The model the stored listings were generated with (0 = before models were recorded). */
export async function listingModel(ch: ClickHouseClient): Promise<number> {
  await ch.command({
    query:
      'CREATE TABLE IF NOT EXISTS bench_seed (part String, model UInt32) ENGINE = ReplacingMergeTree(model) ORDER BY part',
  });
  const result = await ch.query({
    query: `SELECT max(model) AS model FROM bench_seed WHERE part = 'listings'`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ model: number }>();
  return Number(row?.model ?? 0);
}

async function cellsTable(ch: ClickHouseClient, log: Log) {
  const { rows, layout } = cellTable();
  log(`bench_cells: ${rows.length} resolution-8 cells`);
  await ch.command({ query: 'DROP TABLE IF EXISTS bench_cells' });
  await ch.command({
    query: `CREATE TABLE bench_cells (cell_id UInt64, city String, neighbourhood String, h3_index UInt64,
              latitude Float64, longitude Float64, price_factor Float64)
            ENGINE = MergeTree ORDER BY cell_id`,
  });
  await ch.insert({ table: 'bench_cells', values: rows, format: 'JSONEachRow' });
  return layout;
}

/** Per type (order of `types`): typical floor area at the typical bedrooms, the rent's reference. */
const referenceArea = [85, 185, 30, 14, 180, 900];

async function insertListings(
  ch: ClickHouseClient,
  layout: ReturnType<typeof cellTable>['layout'],
  listings: number,
  log: Log,
) {
  await listingModel(ch); // creates bench_seed
  await ch.command({ query: 'TRUNCATE TABLE bench_seed' });
  const chunk = 2_000_000;
  for (let start = 0; start < listings; start += chunk) {
    const t0 = performance.now();
    // u…: uniforms of a listing; z_…: standard normals (Irwin–Hall of four uniforms). The price
    // model is the one described at the top of this file.
    await ch.command({
      query: `INSERT INTO listings (listing_id, account_id, batch_id, is_test, listed_at, stored_at, title, description,
                property_type, price, currency, price_tzs, fx_rate_to_tzs, bedrooms, bathrooms, area_sqm,
                latitude, longitude, h3_index, city, neighbourhood, location_source, version)
              SELECT generateUUIDv4(),
                concat('acct', toString(number % 5000)), toUUID('00000000-0000-4000-8000-000000000000'),
                is_test, at, at, 'Bench listing', 'Bench listing', {type_names:Array(String)}[ti],
                rent, 'TZS', rent, 1, beds, baths, if(u5 < 0.25, NULL, round(area_true)),
                latitude + (u6 - 0.5) * 0.0036, longitude + (u7 - 0.5) * 0.0036,
                h3_index, city, neighbourhood, 'coordinates', 1
              FROM (
                SELECT *,
                  (intHash64(seed * 41 + 12) % 1000000) / 1000000 AS u1,
                  (intHash64(seed * 43 + 13) % 1000000) / 1000000 AS u2,
                  (intHash64(seed * 47 + 14) % 1000000) / 1000000 AS u5,
                  (intHash64(seed * 53 + 15) % 1000000) / 1000000 AS u6,
                  (intHash64(seed * 59 + 16) % 1000000) / 1000000 AS u7,
                  ((intHash64(seed * 61 + 17) % 10000 + intHash64(seed * 67 + 18) % 10000
                    + intHash64(seed * 71 + 19) % 10000 + intHash64(seed * 73 + 20) % 10000) / 10000 - 2) * 1.732 AS z_area,
                  ((intHash64(seed * 79 + 21) % 10000 + intHash64(seed * 83 + 22) % 10000
                    + intHash64(seed * 89 + 23) % 10000 + intHash64(seed * 97 + 24) % 10000) / 10000 - 2) * 1.732 AS z_unit,
                  CAST(multiIf(ti = 1, 1 + (u1 >= 0.25) + (u1 >= 0.65) + (u1 >= 0.9),
                               ti = 2, 2 + (u1 >= 0.15) + (u1 >= 0.5) + (u1 >= 0.8) + (u1 >= 0.95),
                               ti = 3, 0, ti = 4, 1, NULL) AS Nullable(UInt16)) AS beds,
                  CAST(multiIf(ti IN (1, 2), greatest(1, assumeNotNull(beds) - (u2 < 0.5)), ti IN (3, 4), 1, NULL)
                       AS Nullable(UInt16)) AS baths,
                  multiIf(ti = 1, 25 + 30 * assumeNotNull(beds), ti = 2, 50 + 45 * assumeNotNull(beds),
                          {reference_area:Array(Float64)}[ti]) * exp(0.22 * z_area) AS area_true,
                  1000 * greatest(1, round({type_rent:Array(Float64)}[ti] * {city_price:Array(Float64)}[ci] * price_factor
                    * pow(area_true / {reference_area:Array(Float64)}[ti], 0.7)
                    * exp(-0.07 * dateDiff('second', at, now()) / (365 * 86400))
                    * exp(0.2 * z_unit) / 1000)) AS rent
                FROM (${generator}) AS generated
                ANY LEFT JOIN bench_cells USING cell_id
              )`,
      query_params: {
        ...generatorParams(layout, 0, 70),
        reference_area: referenceArea,
        start,
        count: Math.min(chunk, listings - start),
      },
    });
    log(`listings ${start + chunk}/${listings} (${Math.round(performance.now() - t0)} ms)`);
  }
  await ch.insert({
    table: 'bench_seed',
    values: [{ part: 'listings', model: LISTING_MODEL }],
    format: 'JSONEachRow',
  });
}

async function insertViews(
  ch: ClickHouseClient,
  layout: ReturnType<typeof cellTable>['layout'],
  views: number,
  log: Log,
) {
  const viewChunk = 10_000_000;
  for (let start = 0; start < views; start += viewChunk) {
    const t0 = performance.now();
    // Views concentrate on the neighbourhoods more than listings do (85 % vs 70 %): demand differs.
    await ch.command({
      query: `INSERT INTO view_events (event_id, listing_id, account_id, is_test, viewed_at, received_at, h3_index,
                city, neighbourhood, property_type, listing_account_id)
              SELECT toString(number), toUUID('00000000-0000-4000-8000-000000000000'), '', is_test, at, at, h3_index,
                city, neighbourhood, {type_names:Array(String)}[ti],
                concat('acct', toString(intHash64(seed * 41 + 12) % 5000))
              FROM (${generator}) AS generated
              ANY LEFT JOIN bench_cells USING cell_id`,
      query_params: {
        ...generatorParams(layout, 1_000_000_000, 85),
        start,
        count: Math.min(viewChunk, views - start),
      },
    });
    log(`view_events ${start + viewChunk}/${views} (${Math.round(performance.now() - t0)} ms)`);
  }
}

/** The steady state of a live system: parts merged. */
async function settle(ops: TableOps) {
  for (const table of [
    'neighbourhood_quarter_stats',
    'cell_quarter_stats',
    'neighbourhood_quarter_prices',
    'rent_comparables',
  ]) {
    await ops.optimize(table);
  }
}
