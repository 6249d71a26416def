-- The pricing answer's price figures prepared per (mode, city, property type, quarter): one row per
-- neighbourhood and one city-wide row (city_wide = 1, neighbourhood ''), with the exact median,
-- average, extremes and the listing count they were computed from. Written by the stream worker's
-- price-summaries job from neighbourhood_quarter_prices (stream/jobs/price-summaries.ts), never by a
-- view: an exact median cannot be added up from parts. Each refresh of a group writes all its rows
-- again with a newer prepared_at; readers take the latest per key (argMax), and the merges keep it.
--
-- A group's rows are used only while their count equals the group's stored count in
-- neighbourhood_quarter_stats: counts only grow, so equal counts mean the same listings, and the
-- answer is what neighbourhood_quarter_prices would give (docs/analytics.md, "Pricing"). Whoever
-- drops a year of neighbourhood_quarter_prices drops the same partition here (toYear(quarter), as
-- there): a summary left behind could count as many listings as new ones of that year.
CREATE TABLE IF NOT EXISTS neighbourhood_quarter_price_summaries
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    quarter Date,
    city_wide UInt8,
    neighbourhood String,
    listings UInt64,
    median_price_tzs Float64,
    avg_price_tzs Float64,
    min_price_tzs Float64,
    max_price_tzs Float64,
    prepared_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(prepared_at)
PARTITION BY toYear(quarter)
ORDER BY (is_test, city, property_type, quarter, city_wide, neighbourhood)
SETTINGS index_granularity = 256;
