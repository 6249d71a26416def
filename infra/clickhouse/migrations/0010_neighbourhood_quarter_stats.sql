-- Listings and views per (mode, quarter, property type, city, neighbourhood): the analytics API's
-- per-neighbourhood view counts and the market-wide totals behind every demand score
-- (docs/analytics.md). Kept by two materialized views, one per base table; SummingMergeTree adds
-- the rows of one key up on merge, so readers always sum() and GROUP BY the key.
-- Quarters are UTC (toStartOfQuarter of listed_at / viewed_at). property_type uses the view_events
-- enum (with 'unknown' = 0) so both feeds fit one column; unknown views are not fed at all.
-- The MVs group each inserted block, so one bulk insert adds a handful of rows, not one per listing.
CREATE TABLE IF NOT EXISTS neighbourhood_quarter_stats
(
    is_test UInt8,
    quarter Date,
    property_type Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    city String,
    neighbourhood String,
    listings UInt64,
    price_tzs_sum Float64,
    views UInt64
)
ENGINE = SummingMergeTree((listings, price_tzs_sum, views))
PARTITION BY toYear(quarter)
ORDER BY (is_test, quarter, property_type, city, neighbourhood)
SETTINGS index_granularity = 1024;

-- Backfill of rows stored before this migration, guarded so a re-run after a partial failure
-- cannot count twice (migrations run before the services start, so nothing inserts meanwhile).
INSERT INTO neighbourhood_quarter_stats
SELECT
    is_test,
    toStartOfQuarter(listed_at) AS quarter,
    CAST(property_type AS Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
    city,
    neighbourhood,
    count() AS listings,
    sum(price_tzs) AS price_tzs_sum,
    toUInt64(0) AS views
FROM listings
WHERE (SELECT count() FROM neighbourhood_quarter_stats) = 0
GROUP BY is_test, quarter, property_type, city, neighbourhood;

INSERT INTO neighbourhood_quarter_stats
SELECT
    is_test,
    toStartOfQuarter(viewed_at) AS quarter,
    property_type,
    city,
    neighbourhood,
    toUInt64(0) AS listings,
    toFloat64(0) AS price_tzs_sum,
    count() AS views
FROM view_events
WHERE (SELECT count() FROM neighbourhood_quarter_stats WHERE views > 0) = 0 AND property_type != 'unknown'
GROUP BY is_test, quarter, property_type, city, neighbourhood;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_neighbourhood_quarter_stats_from_listings TO neighbourhood_quarter_stats AS
SELECT
    is_test,
    toStartOfQuarter(listed_at) AS quarter,
    CAST(property_type AS Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
    city,
    neighbourhood,
    count() AS listings,
    sum(price_tzs) AS price_tzs_sum,
    toUInt64(0) AS views
FROM listings
GROUP BY is_test, quarter, property_type, city, neighbourhood;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_neighbourhood_quarter_stats_from_views TO neighbourhood_quarter_stats AS
SELECT
    is_test,
    toStartOfQuarter(viewed_at) AS quarter,
    property_type,
    city,
    neighbourhood,
    toUInt64(0) AS listings,
    toFloat64(0) AS price_tzs_sum,
    count() AS views
FROM view_events
WHERE property_type != 'unknown'
GROUP BY is_test, quarter, property_type, city, neighbourhood
