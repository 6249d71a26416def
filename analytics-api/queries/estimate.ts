// SQL of the rent estimate (docs/analytics.md, "Rent estimates"). The comparables come from
// rent_comparables (migration 0090), read through its sort key: mode, type, the resolution-8 cells
// of a disk around the point (computed with h3-js, geo/h3-disk.ts) and the age window. The
// distance is the haversine of common/estimate/method.ts written out in SQL, and the order and
// the similarity filter are the method's too, so the backtest measures what this returns.
// `LIMIT … BY recent` returns the nearest of the last 90 days and the nearest older ones in one
// pass: the method widens through both age windows from the same rows.
import { z } from 'zod';
import { propertyTypes } from '../../common/domain/listing.ts';
import { estimateAccuracyTable } from '../../common/warehouse/estimate-accuracy.ts';
import { rentComparablesTable } from '../../common/warehouse/rent-comparables.ts';
import { count, defineQuery, flag, nullableNumber, uint64 } from '../../common/warehouse/query.ts';

const nullableCount = z.union([z.coerce.number().int().min(0), z.null()]);

const probeParams = z.object({
  isTest: z.boolean(),
  type: z.enum(propertyTypes),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  cells: z.array(uint64).min(1),
  radiusKm: z.number().positive(),
  /** Epoch seconds: listed in [from, to]; recent from recentFrom on. */
  from: z.number().int(),
  to: z.number().int(),
  recentFrom: z.number().int(),
  bedrooms: z.number().int().min(0).nullable(),
  bedroomTolerance: z.number().int().min(0),
  areaSqm: z.number().positive().nullable(),
  areaRatio: z.number().min(1),
  excludeId: z.string().uuid().nullable(),
  excludeFingerprint: uint64.nullable(),
  limit: z.number().int().positive(),
});

const comparableRow = z.object({
  listing_id: z.string(),
  listed_at: z.coerce.number().int(),
  distance_km: z.number(),
  bedrooms: nullableCount,
  bathrooms: nullableCount,
  area_sqm: z.number().nullable(),
  price_tzs: z.number(),
  tie_hi: z.coerce.number().int(),
  tie_lo: z.coerce.number().int(),
  recent: z.coerce.number().int(),
  city: z.string(),
});
export type ComparableRow = z.output<typeof comparableRow>;

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** The nearest similar listings within the radius: at most `limit` recent ones and `limit` older. */
export const nearbyComparables = defineQuery({
  name: 'estimate.nearby_comparables',
  params: probeParams,
  row: comparableRow,
  queryParams: (p) => ({
    isTest: flag(p.isTest),
    type: p.type,
    lat: p.latitude,
    lng: p.longitude,
    cells: p.cells,
    radiusKm: p.radiusKm,
    from: p.from,
    to: p.to,
    recentFrom: p.recentFrom,
    bedrooms: p.bedrooms,
    bedroomTolerance: p.bedroomTolerance,
    area: p.areaSqm,
    areaRatio: p.areaRatio,
    excludeId: p.excludeId ?? NIL_UUID,
    excludeFingerprint: p.excludeFingerprint ?? 0n,
    limit: p.limit,
  }),
  sql: `
    SELECT toString(listing_id) AS listing_id, toUInt32(listed_at) AS listed_at, distance_km,
           bedrooms, bathrooms, area_sqm, price_tzs,
           toUInt32(bitShiftRight(tie, 32)) AS tie_hi, toUInt32(bitAnd(tie, 4294967295)) AS tie_lo, recent, city
    FROM (
      SELECT listing_id, listed_at, bedrooms, bathrooms, area_sqm, price_tzs, city,
             cityHash64(listing_id) AS tie,
             toUInt8(listed_at >= toDateTime({recentFrom:UInt32}, 'UTC')) AS recent,
             12742 * asin(sqrt(
               pow(sin(((latitude - {lat:Float64}) * (pi() / 180)) / 2), 2)
               + cos({lat:Float64} * (pi() / 180)) * cos(latitude * (pi() / 180))
                 * pow(sin(((longitude - {lng:Float64}) * (pi() / 180)) / 2), 2))) AS distance_km
      FROM ${rentComparablesTable.name}
      WHERE is_test = {isTest:UInt8}
        AND property_type = {type:String}
        AND h3_index IN {cells:Array(UInt64)}
        AND listed_at >= toDateTime({from:UInt32}, 'UTC') AND listed_at <= toDateTime({to:UInt32}, 'UTC')
        AND ({bedrooms:Nullable(Int32)} IS NULL OR (bedrooms IS NOT NULL
             AND abs(toInt32(assumeNotNull(bedrooms)) - {bedrooms:Nullable(Int32)}) <= {bedroomTolerance:UInt8}))
        AND ({area:Nullable(Float64)} IS NULL OR area_sqm IS NULL
             OR (area_sqm >= {area:Nullable(Float64)} / {areaRatio:Float64}
                 AND area_sqm <= {area:Nullable(Float64)} * {areaRatio:Float64}))
        AND listing_id != {excludeId:UUID}
        AND fingerprint != {excludeFingerprint:UInt64}
        AND distance_km <= {radiusKm:Float64}
    )
    ORDER BY distance_km, listed_at DESC, tie
    LIMIT {limit:UInt32} BY recent`,
});

const accuracyRow = z.object({
  city: z.string(),
  property_type: z.string(),
  bedrooms: z.string(),
  run_at: z.string(),
  from_month: z.string(),
  to_month: z.string(),
  subjects: count,
  n: count,
  median_ape: nullableNumber,
  within_10pct: nullableNumber,
  within_20pct: nullableNumber,
  interval_target: z.number(),
  interval_coverage: nullableNumber,
  interval_low: z.number(),
  interval_high: z.number(),
  interval_level: z.string(),
  baseline_n: count,
  baseline_median_ape: nullableNumber,
  baseline_within_10pct: nullableNumber,
  baseline_within_20pct: nullableNumber,
});
export type AccuracyRow = z.output<typeof accuracyRow>;

/** Every segment of the mode's latest backtest run (a few hundred rows; cached by the caller). */
export const latestAccuracy = defineQuery({
  name: 'estimate.latest_accuracy',
  params: z.object({ isTest: z.boolean() }),
  row: accuracyRow,
  queryParams: (p) => ({ isTest: flag(p.isTest) }),
  sql: `
    SELECT city, property_type, bedrooms, formatDateTime(run_at, '%Y-%m-%dT%H:%i:%SZ') AS run_at,
           toString(from_month) AS from_month, toString(to_month) AS to_month, subjects, n,
           median_ape, within_10pct, within_20pct, interval_target, interval_coverage,
           interval_low, interval_high, interval_level, baseline_n, baseline_median_ape,
           baseline_within_10pct, baseline_within_20pct
    FROM ${estimateAccuracyTable.name}
    WHERE is_test = {isTest:UInt8}
      AND run_id = (SELECT argMax(run_id, run_at) FROM ${estimateAccuracyTable.name}
                    WHERE is_test = {isTest:UInt8})`,
});

const subjectRow = z.object({
  listing_id: z.string(),
  account_id: z.string(),
  is_test: z.coerce.number().int(),
  property_type: z.enum(propertyTypes),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  bedrooms: nullableCount,
  bathrooms: nullableCount,
  area_sqm: z.number().nullable(),
  price_tzs: z.number().nullable(),
  fingerprint: z.string().nullable(),
  city: z.string().nullable(),
  placed: z.coerce.number().int(),
});
export type SubjectRow = z.output<typeof subjectRow>;

/**
 * A listing of one account as the estimate sees it: found by id in listing_lookup (sorted by id),
 * then in rent_comparables by the full prefix of its sort key. A listing without a place has no
 * rent_comparables row: `placed` is 0 and its fields are null.
 */
export const listingSubject = defineQuery({
  name: 'estimate.listing_subject',
  params: z.object({ id: z.string().uuid(), account: z.string() }),
  row: subjectRow,
  queryParams: (p) => ({ id: p.id, account: p.account }),
  sql: `
    SELECT toString(l.listing_id) AS listing_id, l.account_id AS account_id, l.is_test AS is_test,
           toString(l.property_type) AS property_type, c.latitude AS latitude, c.longitude AS longitude,
           c.bedrooms AS bedrooms, c.bathrooms AS bathrooms, c.area_sqm AS area_sqm,
           c.price_tzs AS price_tzs, toString(c.fingerprint) AS fingerprint, c.city AS city,
           toUInt8(l.h3_index != 0 AND c.listing_id IS NOT NULL) AS placed
    FROM (
      SELECT listing_id, account_id, is_test, property_type, h3_index FROM listing_lookup
      WHERE listing_id = {id:UUID} AND account_id = {account:String} LIMIT 1
    ) AS l
    LEFT JOIN (
      SELECT * FROM ${rentComparablesTable.name}
      WHERE (is_test, property_type, h3_index) IN (
              SELECT is_test, property_type, h3_index FROM listing_lookup WHERE listing_id = {id:UUID})
        AND listing_id = {id:UUID}
    ) AS c ON c.listing_id = l.listing_id
    SETTINGS join_use_nulls = 1`,
});
