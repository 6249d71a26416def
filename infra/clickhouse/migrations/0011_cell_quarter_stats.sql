-- Listings, price sum and views per (mode, quarter, H3 resolution-8 cell, property type): the
-- demand heatmap (docs/analytics.md). Same feeding as neighbourhood_quarter_stats. The sort key
-- puts h3_index right after the quarter, so the API reads a bounding box as a few h3_index ranges
-- (all res-8 children of a coarser parent cell form one contiguous range). Rows without a cell
-- (h3_index = 0: no usable location) are not fed.
CREATE TABLE IF NOT EXISTS cell_quarter_stats
(
    is_test UInt8,
    quarter Date,
    h3_index UInt64,
    property_type Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    listings UInt64,
    price_tzs_sum Float64,
    views UInt64
)
ENGINE = SummingMergeTree((listings, price_tzs_sum, views))
PARTITION BY toYear(quarter)
ORDER BY (is_test, quarter, h3_index, property_type)
SETTINGS index_granularity = 1024;

-- Backfill of rows stored before this migration, guarded so a re-run after a partial failure
-- cannot count twice (migrations run before the services start, so nothing inserts meanwhile).
INSERT INTO cell_quarter_stats
SELECT
    is_test,
    toStartOfQuarter(listed_at) AS quarter,
    h3_index,
    CAST(property_type AS Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
    count() AS listings,
    sum(price_tzs) AS price_tzs_sum,
    toUInt64(0) AS views
FROM listings
WHERE (SELECT count() FROM cell_quarter_stats) = 0 AND h3_index != 0
GROUP BY is_test, quarter, h3_index, property_type;

INSERT INTO cell_quarter_stats
SELECT
    is_test,
    toStartOfQuarter(viewed_at) AS quarter,
    h3_index,
    property_type,
    toUInt64(0) AS listings,
    toFloat64(0) AS price_tzs_sum,
    count() AS views
FROM view_events
WHERE (SELECT count() FROM cell_quarter_stats WHERE views > 0) = 0 AND h3_index != 0 AND property_type != 'unknown'
GROUP BY is_test, quarter, h3_index, property_type;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_cell_quarter_stats_from_listings TO cell_quarter_stats AS
SELECT
    is_test,
    toStartOfQuarter(listed_at) AS quarter,
    h3_index,
    CAST(property_type AS Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
    count() AS listings,
    sum(price_tzs) AS price_tzs_sum,
    toUInt64(0) AS views
FROM listings
WHERE h3_index != 0
GROUP BY is_test, quarter, h3_index, property_type;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_cell_quarter_stats_from_views TO cell_quarter_stats AS
SELECT
    is_test,
    toStartOfQuarter(viewed_at) AS quarter,
    h3_index,
    property_type,
    toUInt64(0) AS listings,
    toFloat64(0) AS price_tzs_sum,
    count() AS views
FROM view_events
WHERE h3_index != 0 AND property_type != 'unknown'
GROUP BY is_test, quarter, h3_index, property_type
