// SQL of the heatmap endpoint (spec §2.5): listings, price sums and views per resolution-8 cell from
// the cell_quarter_stats aggregate (migration 0011), read as a few h3_index ranges of its sort key.
// A city box returns thousands of rows, so they come compact (arrays, unquoted counts) and the
// UInt64 cell id as two UInt32 halves: h3-js takes [low, high] directly, with no BigInt or hex
// parsing per cell; uncompressed, as gzip of that much costs more than it saves on a local link.
//
// The box is covered by parent cells of one resolution (geo/h3-ranges.ts); the res-8 descendants of
// each parent are one contiguous range of the sort key. A row is kept when its parent at that
// resolution is one of the covering's: two bit operations and a set lookup per row
// (`parentMasks`), the same rows as a test against every range, which an `arrayExists` lambda over
// the ranges made dearer than the rest of the statement. ClickHouse cannot prune the primary key with
// either, so the statement also names INDEX_SPANS covering spans as fixed placeholders: each span is
// the [lo, hi] hull of neighbouring ranges, the key reads only granules inside a span (the same
// granules as one BETWEEN per range, give or take one), and the static text stays short.
import { z } from 'zod';
import { propertyTypes } from '../../common/domain/listing.ts';
import { defineQuery, flag, isoDate, uint64 } from '../../common/warehouse/query.ts';
import { cellQuarterStatsTable } from '../../common/warehouse/aggregates.ts';
import { childRange, GRID_RESOLUTION, mergeRanges, parentMasks } from '../geo/h3-ranges.ts';

export const MAX_RANGES = 200;
/** Covering spans the statement names (`{span_lo:Array(UInt64)}[1]` … `[4]`). */
export const INDEX_SPANS = 4;

/** [cell id high 32 bits, low 32 bits, listings, price_tzs_sum, views] */
export type CellRow = [number, number, number, number, number];

const isUint32 = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
const isCount = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * One check per row rather than z.tuple's per element: a city box returns thousands of rows, and
 * the tuple's checks cost ~10 ms of CPU per 4,000-cell answer (about a fifth of it). The counts
 * come as JSON numbers (the statement is compact, 64-bit integers unquoted), so none is coerced.
 */
export const cellRow = z.custom<CellRow>(
  (row) =>
    Array.isArray(row) &&
    row.length === 5 &&
    isUint32(row[0]) &&
    isUint32(row[1]) &&
    isCount(row[2]) &&
    typeof row[3] === 'number' &&
    Number.isFinite(row[3]) &&
    isCount(row[4]),
  { message: 'heatmap cell row: expected [uint32, uint32, count, number, count]' },
);

export interface Range {
  lo: bigint;
  hi: bigint;
}

/**
 * At most `spans` [lo, hi] spans that together cover every range: neighbouring ranges with the
 * smallest gaps between them are joined first. Padded to exactly `spans` by repeating the last span
 * (a repeated span selects nothing more).
 */
export function coveringSpans(ranges: Range[], spans: number): { lo: bigint[]; hi: bigint[] } {
  const merged: Range[] = [];
  for (const range of [...ranges].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0))) {
    const last = merged[merged.length - 1];
    if (last && range.lo <= last.hi) {
      if (range.hi > last.hi) last.hi = range.hi;
    } else merged.push({ ...range });
  }
  while (merged.length > spans) {
    let join = 1; // join merged[join - 1] and merged[join]: the pair with the smallest gap
    for (let i = 2; i < merged.length; i++) {
      if (merged[i]!.lo - merged[i - 1]!.hi < merged[join]!.lo - merged[join - 1]!.hi) join = i;
    }
    merged[join - 1]!.hi = merged[join]!.hi;
    merged.splice(join, 1);
  }
  while (merged.length < spans) merged.push({ ...merged[merged.length - 1]! });
  return { lo: merged.map((s) => s.lo), hi: merged.map((s) => s.hi) };
}

export const cellStats = defineQuery({
  name: 'heatmap.cell_stats',
  compact: true,
  compressResponse: false,
  params: z.object({
    isTest: z.boolean(),
    quarterStart: isoDate,
    type: z.enum(propertyTypes).optional(),
    /** Resolution of the covering's parent cells (coarser than the grid's). */
    parentResolution: z
      .number()
      .int()
      .min(0)
      .max(GRID_RESOLUTION - 1),
    /** The covering's parent cells, as UInt64 indexes. */
    parents: z.array(uint64).min(1).max(MAX_RANGES),
  }),
  row: cellRow,
  queryParams: (p) => {
    const ranges = mergeRanges(p.parents.map((parent) => childRange(parent.toString(16), GRID_RESOLUTION)));
    const spans = coveringSpans(ranges, INDEX_SPANS);
    const masks = parentMasks(p.parentResolution);
    return {
      isTest: flag(p.isTest),
      quarterStart: p.quarterStart,
      type: p.type ?? null,
      parent_keep: masks.keep,
      parent_fill: masks.fill,
      parents: p.parents,
      span_lo: spans.lo,
      span_hi: spans.hi,
    };
  },
  sql: `
    SELECT
      toUInt32(intDiv(h3_index, 4294967296)) AS cell_high,
      toUInt32(h3_index % 4294967296) AS cell_low,
      sum(listings) AS listings,
      sum(price_tzs_sum) AS price_tzs_sum,
      sum(views) AS views
    FROM ${cellQuarterStatsTable.name}
    WHERE is_test = {isTest:UInt8}
      AND quarter = {quarterStart:Date}
      AND (h3_index BETWEEN {span_lo:Array(UInt64)}[1] AND {span_hi:Array(UInt64)}[1]
        OR h3_index BETWEEN {span_lo:Array(UInt64)}[2] AND {span_hi:Array(UInt64)}[2]
        OR h3_index BETWEEN {span_lo:Array(UInt64)}[3] AND {span_hi:Array(UInt64)}[3]
        OR h3_index BETWEEN {span_lo:Array(UInt64)}[4] AND {span_hi:Array(UInt64)}[4])
      AND bitOr(bitAnd(h3_index, {parent_keep:UInt64}), {parent_fill:UInt64}) IN {parents:Array(UInt64)}
      AND (isNull({type:Nullable(String)}) OR property_type = {type:Nullable(String)})
    GROUP BY h3_index
    HAVING listings > 0
    ORDER BY h3_index`,
});
