-- Rent estimates (docs/analytics.md, "Rent estimates"): the comparables an estimate is built from,
-- one row per placed listing, kept by a materialized view from `listings`. The sort key serves the
-- lookup "listings of this mode and type in these resolution-8 H3 cells, listed in this window":
-- the API passes the cells of a disk around the point (h3-js), so the primary key reads only
-- those cells, and the exact cell values let it prune by listed_at inside each cell as well.
-- Monthly partitions: a 90-day window reads four of them, a 365-day one thirteen.
--   latitude/longitude  the listing's coordinates, else the centre of its cell (a listing placed by
--                       location_id or address sits at its neighbourhood's centre cell); h3ToGeo
--                       gives (lat, lng) under the default h3togeo_lon_lat_result_order = 0
--   fingerprint         cityHash64 of the ingest's duplicate criterion (ingest/listings/
--                       fingerprint.ts) recomputed from the stored fields: `ext|<external_id>`,
--                       else type, normalised title, place, price with currency, bedrooms,
--                       bathrooms. An estimate for a listing leaves out every listing with the same
--                       fingerprint (the same unit pushed again, e.g. by another account).
CREATE TABLE IF NOT EXISTS rent_comparables
(
    is_test UInt8,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    h3_index UInt64,
    listed_at DateTime('UTC'),
    listing_id UUID,
    account_id String,
    city String,
    latitude Float64,
    longitude Float64,
    bedrooms Nullable(UInt16),
    bathrooms Nullable(UInt16),
    area_sqm Nullable(Float64),
    price_tzs Float64,
    fingerprint UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(listed_at)
ORDER BY (is_test, property_type, h3_index, listed_at)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Listings stored before this migration (guarded against a second run). Same SELECT as the view.
INSERT INTO rent_comparables
SELECT is_test, property_type, h3_index, listed_at, listing_id, account_id, city,
       if(latitude IS NULL OR longitude IS NULL, h3ToGeo(h3_index).1, assumeNotNull(latitude)) AS latitude,
       if(latitude IS NULL OR longitude IS NULL, h3ToGeo(h3_index).2, assumeNotNull(longitude)) AS longitude,
       bedrooms, bathrooms, area_sqm, price_tzs,
       cityHash64(if(external_id != '', concat('ext|', external_id), concat(
         'v1|', toString(property_type),
         '|', trimBoth(replaceRegexpAll(lowerUTF8(normalizeUTF8NFKC(title)), '[^\\p{L}\\p{N}]+', ' ')),
         '|', multiIf(
                address != '', concat('a:', trimBoth(replaceRegexpAll(lowerUTF8(normalizeUTF8NFKC(address)), '[^\\p{L}\\p{N}]+', ' '))),
                latitude IS NOT NULL AND longitude IS NOT NULL,
                  concat('g:', toDecimalString(assumeNotNull(latitude), 4), ',', toDecimalString(assumeNotNull(longitude), 4)),
                location_id IS NOT NULL, concat('l:', lower(toString(assumeNotNull(location_id)))),
                '-'),
         '|', toString(price), toString(currency),
         '|', ifNull(toString(bedrooms), ''),
         '|', ifNull(toString(bathrooms), '')))) AS fingerprint
FROM listings
WHERE h3_index != 0 AND (SELECT count() FROM rent_comparables) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_rent_comparables TO rent_comparables AS
SELECT is_test, property_type, h3_index, listed_at, listing_id, account_id, city,
       if(latitude IS NULL OR longitude IS NULL, h3ToGeo(h3_index).1, assumeNotNull(latitude)) AS latitude,
       if(latitude IS NULL OR longitude IS NULL, h3ToGeo(h3_index).2, assumeNotNull(longitude)) AS longitude,
       bedrooms, bathrooms, area_sqm, price_tzs,
       cityHash64(if(external_id != '', concat('ext|', external_id), concat(
         'v1|', toString(property_type),
         '|', trimBoth(replaceRegexpAll(lowerUTF8(normalizeUTF8NFKC(title)), '[^\\p{L}\\p{N}]+', ' ')),
         '|', multiIf(
                address != '', concat('a:', trimBoth(replaceRegexpAll(lowerUTF8(normalizeUTF8NFKC(address)), '[^\\p{L}\\p{N}]+', ' '))),
                latitude IS NOT NULL AND longitude IS NOT NULL,
                  concat('g:', toDecimalString(assumeNotNull(latitude), 4), ',', toDecimalString(assumeNotNull(longitude), 4)),
                location_id IS NOT NULL, concat('l:', lower(toString(assumeNotNull(location_id)))),
                '-'),
         '|', toString(price), toString(currency),
         '|', ifNull(toString(bedrooms), ''),
         '|', ifNull(toString(bathrooms), '')))) AS fingerprint
FROM listings
WHERE h3_index != 0
