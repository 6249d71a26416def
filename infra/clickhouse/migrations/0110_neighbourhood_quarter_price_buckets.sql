-- The pricing endpoint's exact medians without reading every price of a city, type and quarter:
-- neighbourhood_quarter_prices (0012) holds a row per distinct price, so its read grew with the
-- listings (tens of thousands of rows for one large city's quarter at 10 M listings). Prices are
-- grouped into buckets by a function that never decreases with the price (32 buckets per doubling,
-- ≈ 2.2 % wide), so every price of a lower bucket is below every price of a higher one:
-- - neighbourhood_quarter_price_buckets: per bucket the listings, their price sum and the extreme
--   prices (a few hundred rows per city, type and quarter): counts, averages, minimum and maximum,
--   and which bucket holds the middle listings and at what rank;
-- - neighbourhood_quarter_bucket_prices: the per-price counts of 0012 sorted by bucket, with small
--   granules, so the middle buckets' exact prices are read alone.
-- Both are fed from the blocks neighbourhood_quarter_prices receives (a few hundred grouped rows
-- per insert, not the listings themselves), as in 0100. The bucket of a price that is not positive
-- (or not a number) is 0 and of a price above 10^18 the last: still in price order.
CREATE TABLE IF NOT EXISTS neighbourhood_quarter_price_buckets
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    quarter Date,
    neighbourhood String,
    bucket UInt16,
    listings SimpleAggregateFunction(sum, UInt64),
    price_tzs_sum SimpleAggregateFunction(sum, Float64),
    min_price_tzs SimpleAggregateFunction(min, Float64),
    max_price_tzs SimpleAggregateFunction(max, Float64)
)
ENGINE = AggregatingMergeTree
PARTITION BY toYear(quarter)
ORDER BY (is_test, city, property_type, quarter, neighbourhood, bucket)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

CREATE TABLE IF NOT EXISTS neighbourhood_quarter_bucket_prices
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    quarter Date,
    neighbourhood String,
    bucket UInt16,
    price_tzs Float64,
    listings UInt64
)
ENGINE = SummingMergeTree((listings))
PARTITION BY toYear(quarter)
ORDER BY (is_test, city, property_type, quarter, neighbourhood, bucket, price_tzs)
SETTINGS index_granularity = 128, non_replicated_deduplication_window = 1000;

-- Backfill of what neighbourhood_quarter_prices already holds, guarded so a re-run after a partial
-- failure cannot count twice (migrations run before the services start, so nothing inserts meanwhile).
INSERT INTO neighbourhood_quarter_price_buckets
SELECT is_test, city, property_type, quarter, neighbourhood,
       toUInt16(floor(log2(least(if(price_tzs > 0, price_tzs, 0), 1e18) + 1) * 32)) AS bucket,
       sum(n) AS listings, sum(price_tzs * n) AS price_tzs_sum,
       min(price_tzs) AS min_price_tzs, max(price_tzs) AS max_price_tzs
FROM (SELECT *, listings AS n FROM neighbourhood_quarter_prices)
WHERE (SELECT count() FROM neighbourhood_quarter_price_buckets) = 0
GROUP BY is_test, city, property_type, quarter, neighbourhood, bucket;

INSERT INTO neighbourhood_quarter_bucket_prices
SELECT is_test, city, property_type, quarter, neighbourhood,
       toUInt16(floor(log2(least(if(price_tzs > 0, price_tzs, 0), 1e18) + 1) * 32)) AS bucket,
       price_tzs, sum(listings) AS listings
FROM neighbourhood_quarter_prices
WHERE (SELECT count() FROM neighbourhood_quarter_bucket_prices) = 0
GROUP BY is_test, city, property_type, quarter, neighbourhood, bucket, price_tzs;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_neighbourhood_quarter_price_buckets TO neighbourhood_quarter_price_buckets AS
SELECT is_test, city, property_type, quarter, neighbourhood,
       toUInt16(floor(log2(least(if(price_tzs > 0, price_tzs, 0), 1e18) + 1) * 32)) AS bucket,
       sum(n) AS listings, sum(price_tzs * n) AS price_tzs_sum,
       min(price_tzs) AS min_price_tzs, max(price_tzs) AS max_price_tzs
FROM (SELECT *, listings AS n FROM neighbourhood_quarter_prices)
GROUP BY is_test, city, property_type, quarter, neighbourhood, bucket;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_neighbourhood_quarter_bucket_prices TO neighbourhood_quarter_bucket_prices AS
SELECT is_test, city, property_type, quarter, neighbourhood,
       toUInt16(floor(log2(least(if(price_tzs > 0, price_tzs, 0), 1e18) + 1) * 32)) AS bucket,
       price_tzs, listings
FROM neighbourhood_quarter_prices
