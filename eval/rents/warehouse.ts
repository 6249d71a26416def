// The evaluation's own ClickHouse database: the tables the estimate and its backtest read, made
// like the stack's (same engines and sort keys), emptied per dataset and filled with its training
// listings as `rent_comparables` rows of live mode. The estimate module then runs unchanged against
// it, so what is measured is the endpoint's own search, method and interval.
import { createHash } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import { latLngToCell } from 'h3-js';
import { resolveByPoint } from '../../common/domain/locations.ts';
import { estimateAccuracyTable } from '../../common/warehouse/estimate-accuracy.ts';
import { rentComparablesTable, type RentComparableRow } from '../../common/warehouse/rent-comparables.ts';
import { insertRows } from '../../common/warehouse/table.ts';
import type { RentRow } from './shape.ts';

export const EVAL_DATABASE = 'rents_eval';
/** Every table the estimate answer and the backtest read. */
const TABLES = [rentComparablesTable.name, estimateAccuracyTable.name, 'listing_lookup', 'listing_states'];

/** Creates the database and its tables as copies of `source`'s (once); empties them. */
export async function resetEvalDatabase(admin: ClickHouseClient, source: string): Promise<void> {
  await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${EVAL_DATABASE}` });
  for (const table of TABLES) {
    await admin.command({
      query: `CREATE TABLE IF NOT EXISTS ${EVAL_DATABASE}.${table} AS ${source}.${table}`,
    });
    await admin.command({ query: `TRUNCATE TABLE ${EVAL_DATABASE}.${table}` });
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** A stable UUID for a dataset's listing id. */
export function listingUuid(dataset: string, id: string): string {
  const h = digest(`${dataset}:${id}`).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function comparableRow(dataset: string, r: RentRow): RentComparableRow {
  return {
    is_test: 0,
    property_type: r.type,
    h3_index: BigInt(`0x${latLngToCell(r.latitude, r.longitude, 8)}`).toString(),
    listed_at: new Date(r.listedAt * 1000).toISOString().slice(0, 19).replace('T', ' '),
    listing_id: listingUuid(dataset, r.id),
    account_id: 'rents-eval',
    city: resolveByPoint(r.latitude, r.longitude)?.city ?? '',
    latitude: r.latitude,
    longitude: r.longitude,
    bedrooms: r.bedrooms,
    bathrooms: r.bathrooms,
    area_sqm: r.areaSqm,
    price_tzs: r.rent,
    fingerprint: digest(`fingerprint:${dataset}:${r.id}`).readBigUInt64BE(0).toString(),
  };
}

export async function loadListings(
  client: ClickHouseClient,
  dataset: string,
  rows: RentRow[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 50_000) {
    await insertRows(
      client,
      rentComparablesTable,
      rows.slice(i, i + 50_000).map((r) => comparableRow(dataset, r)),
    );
  }
}
