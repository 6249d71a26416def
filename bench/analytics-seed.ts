// Seeds the analytics benchmark database (bench/analytics.ts): listings and view events generated
// INSIDE ClickHouse (INSERT … SELECT from numbers()), placed on real H3 resolution-8 cells around the
// neighbourhood centres of the locations dataset. Node computes the candidate cells once with h3-js
// (the same library as the stream) into a small `bench_cells` table that the generator joins.
import type { ClickHouseClient } from '@clickhouse/client';
import { gridDisk, latLngToCell } from 'h3-js';
import { citySlugs, type CitySlug } from '../common/domain/cities.ts';
import { cityLocation, distanceKm, neighbourhoodsOf } from '../common/domain/locations.ts';
import { cellToLatLng } from 'h3-js';

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

interface CellRow {
  cell_id: number;
  city: string;
  neighbourhood: string;
  h3_index: string;
}

/** Per city: cells of its neighbourhoods (dense) and of the whole city disk (sparse). */
function cellTable() {
  const rows: CellRow[] = [];
  const layout = {
    nbOff: [] as number[],
    nbCnt: [] as number[],
    cityOff: [] as number[],
    cityCnt: [] as number[],
  };
  for (const city of citySlugs) {
    const nbs = neighbourhoodsOf(city);
    layout.nbOff.push(rows.length);
    for (const nb of nbs) {
      const k = Math.max(1, Math.ceil(nb.radius_km / 0.46));
      for (const h3 of gridDisk(latLngToCell(nb.latitude, nb.longitude, 8), k)) {
        rows.push({
          cell_id: rows.length,
          city,
          neighbourhood: nb.name,
          h3_index: BigInt(`0x${h3}`).toString(),
        });
      }
    }
    layout.nbCnt.push(rows.length - layout.nbOff.at(-1)!);
    const centre = cityLocation(city)!;
    layout.cityOff.push(rows.length);
    for (const h3 of gridDisk(
      latLngToCell(centre.latitude, centre.longitude, 8),
      Math.ceil(centre.radius_km / 0.8),
    )) {
      const [lat, lng] = cellToLatLng(h3);
      const near = nbs.find((nb) => distanceKm(lat, lng, nb.latitude, nb.longitude) <= nb.radius_km);
      rows.push({
        cell_id: rows.length,
        city,
        neighbourhood: near?.name ?? '',
        h3_index: BigInt(`0x${h3}`).toString(),
      });
    }
    layout.cityCnt.push(rows.length - layout.cityOff.at(-1)!);
  }
  return { rows, layout };
}

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

export async function seed(ch: ClickHouseClient, listings: number, views: number, log: (m: string) => void) {
  const { rows, layout } = cellTable();
  log(`bench_cells: ${rows.length} resolution-8 cells`);
  await ch.command({ query: 'DROP TABLE IF EXISTS bench_cells' });
  await ch.command({
    query: `CREATE TABLE bench_cells (cell_id UInt64, city String, neighbourhood String, h3_index UInt64)
            ENGINE = MergeTree ORDER BY cell_id`,
  });
  await ch.insert({ table: 'bench_cells', values: rows, format: 'JSONEachRow' });
  for (const table of [
    'listings',
    'listing_lookup',
    'view_events',
    'neighbourhood_quarter_stats',
    'cell_quarter_stats',
    'neighbourhood_quarter_prices',
  ]) {
    await ch.command({ query: 'TRUNCATE TABLE {table:Identifier}', query_params: { table } });
  }
  const chunk = 2_000_000;
  for (let start = 0; start < listings; start += chunk) {
    const t0 = performance.now();
    await ch.command({
      query: `INSERT INTO listings (listing_id, account_id, batch_id, is_test, listed_at, stored_at, title, description,
                property_type, price, currency, price_tzs, fx_rate_to_tzs, h3_index, city, neighbourhood,
                location_source, version)
              SELECT generateUUIDv4(),
                concat('acct', toString(number % 5000)), toUUID('00000000-0000-4000-8000-000000000000'),
                is_test, at, at, 'Bench listing', 'Bench listing', {type_names:Array(String)}[ti],
                price, 'TZS', price, 1, h3_index, city, neighbourhood, 'coordinates', 1
              FROM (${generator}) AS generated
              ANY LEFT JOIN bench_cells USING cell_id`,
      query_params: {
        ...generatorParams(layout, 0, 70),
        start,
        count: Math.min(chunk, listings - start),
      },
    });
    log(`listings ${start + chunk}/${listings} (${Math.round(performance.now() - t0)} ms)`);
  }
  const viewChunk = 10_000_000;
  for (let start = 0; start < views; start += viewChunk) {
    const t0 = performance.now();
    // Views concentrate on the neighbourhoods more than listings do (85 % vs 70 %): demand differs.
    await ch.command({
      query: `INSERT INTO view_events (event_id, listing_id, account_id, is_test, viewed_at, received_at, h3_index,
                city, neighbourhood, property_type)
              SELECT toString(number), toUUID('00000000-0000-4000-8000-000000000000'), '', is_test, at, at, h3_index,
                city, neighbourhood, {type_names:Array(String)}[ti]
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
  // The steady state of a live system: aggregate parts merged.
  await ch.command({ query: 'OPTIMIZE TABLE neighbourhood_quarter_stats FINAL' });
  await ch.command({ query: 'OPTIMIZE TABLE cell_quarter_stats FINAL' });
  await ch.command({ query: 'OPTIMIZE TABLE neighbourhood_quarter_prices FINAL' });
}
