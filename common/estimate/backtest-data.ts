// The backtest's data: one mode and property type of `rent_comparables` over a time range, loaded
// as columns (typed arrays) in listed_at order. Fixed-width RowBinary keeps millions of rows cheap
// to move and to decode (no text, no per-row objects).
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { citySlugs } from '../domain/cities.ts';
import type { PropertyType } from '../domain/listing.ts';
import { count, defineQuery } from '../warehouse/query.ts';
import { rentComparablesTable } from '../warehouse/rent-comparables.ts';

export interface ComparableColumns {
  length: number;
  /** Epoch seconds, ascending. */
  listedAt: Uint32Array;
  latitude: Float64Array;
  longitude: Float64Array;
  /** -1 = unknown. */
  bedrooms: Int16Array;
  bathrooms: Int16Array;
  /** NaN = unknown. */
  areaSqm: Float64Array;
  priceTzs: Float64Array;
  fingerprintHi: Uint32Array;
  fingerprintLo: Uint32Array;
  tieHi: Uint32Array;
  tieLo: Uint32Array;
  /** Index into `cities` ('' first: outside the ten cities). */
  city: Uint8Array;
}

/** City codes of ComparableColumns.city: 0 = '' (no city), then the slugs. */
export const cities: readonly string[] = ['', ...citySlugs];

const ROW_BYTES = 4 + 8 + 8 + 2 + 2 + 8 + 8 + 8 + 8 + 1;

// Column order and widths match ROW_BYTES and decodeRow below. `indexOf` is 1-based (0 when
// missing): '' (the first element) becomes 0, a slug its place in `cities`, anything else 0.
const sql = `
  SELECT toUInt32(listed_at), latitude, longitude,
         toInt16(ifNull(bedrooms, -1)), toInt16(ifNull(bathrooms, -1)), ifNull(area_sqm, nan),
         price_tzs, fingerprint, cityHash64(listing_id),
         toUInt8(greatest(indexOf({cities:Array(String)}, city), 1) - 1)
  FROM ${rentComparablesTable.name}
  WHERE is_test = {isTest:UInt8} AND property_type = {type:String}
    AND listed_at >= {from:DateTime('UTC')} AND listed_at < {to:DateTime('UTC')}
  ORDER BY listed_at
  FORMAT RowBinary`;

function allocate(capacity: number): ComparableColumns {
  return {
    length: 0,
    listedAt: new Uint32Array(capacity),
    latitude: new Float64Array(capacity),
    longitude: new Float64Array(capacity),
    bedrooms: new Int16Array(capacity),
    bathrooms: new Int16Array(capacity),
    areaSqm: new Float64Array(capacity),
    priceTzs: new Float64Array(capacity),
    fingerprintHi: new Uint32Array(capacity),
    fingerprintLo: new Uint32Array(capacity),
    tieHi: new Uint32Array(capacity),
    tieLo: new Uint32Array(capacity),
    city: new Uint8Array(capacity),
  };
}

const countQuery = defineQuery({
  name: 'backtest_comparables_count',
  params: z.object({
    isTest: z.number().int(),
    type: z.string(),
    from: z.number().int(),
    to: z.number().int(),
  }),
  row: z.object({ n: count }),
  sql: `SELECT count() AS n FROM ${rentComparablesTable.name}
            WHERE is_test = {isTest:UInt8} AND property_type = {type:String}
              AND listed_at >= {from:DateTime('UTC')} AND listed_at < {to:DateTime('UTC')}`,
  // A background job: as long as the client waits for any request.
  maxSeconds: 30,
});

export async function loadComparables(
  client: ClickHouseClient,
  scope: { isTest: boolean; type: PropertyType; from: Date; to: Date },
): Promise<ComparableColumns> {
  const params = {
    cities,
    isTest: scope.isTest ? 1 : 0,
    type: scope.type,
    from: Math.floor(scope.from.getTime() / 1000),
    to: Math.floor(scope.to.getTime() / 1000),
  };
  const {
    rows: [{ n } = { n: 0 }],
  } = await countQuery.run(client, {
    isTest: params.isTest,
    type: params.type,
    from: params.from,
    to: params.to,
  });
  // The count bounds the rows (a listing stored meanwhile may add one; it is left out).
  // The rows themselves stream as RowBinary (below): millions of them, never one JSON body.
  const columns = allocate(n);
  const { stream } = await client.exec({ query: sql, query_params: params });
  let carry = Buffer.alloc(0);
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const rows = Math.floor(data.length / ROW_BYTES);
    for (let r = 0; r < rows && columns.length < columns.listedAt.length; r++) {
      decodeRow(data, r * ROW_BYTES, columns, columns.length++);
    }
    carry = Buffer.from(data.subarray(rows * ROW_BYTES));
  }
  return columns;
}

function decodeRow(b: Buffer, o: number, c: ComparableColumns, i: number): void {
  c.listedAt[i] = b.readUInt32LE(o);
  c.latitude[i] = b.readDoubleLE(o + 4);
  c.longitude[i] = b.readDoubleLE(o + 12);
  c.bedrooms[i] = b.readInt16LE(o + 20);
  c.bathrooms[i] = b.readInt16LE(o + 22);
  c.areaSqm[i] = b.readDoubleLE(o + 24);
  c.priceTzs[i] = b.readDoubleLE(o + 32);
  c.fingerprintLo[i] = b.readUInt32LE(o + 40);
  c.fingerprintHi[i] = b.readUInt32LE(o + 44);
  c.tieLo[i] = b.readUInt32LE(o + 48);
  c.tieHi[i] = b.readUInt32LE(o + 52);
  c.city[i] = b.readUInt8(o + 56);
}
