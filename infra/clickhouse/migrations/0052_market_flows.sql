-- Aggregates of the market endpoints (velocity, seasonality, market share; docs/analytics.md,
-- "Listing lifecycle metrics"). All are SummingMergeTree tables with SIGNED counts, fed by
-- materialized views from three sources:
--   listings                 a stored listing comes on the market at listed_at (+1 entry);
--   listing_status_changes   each change carries its `transition` (0050), turned into deltas here:
--                            exit +1, relabel -1 old reason / +1 new reason, return -1 (the exit is
--                            undone: the spell continues), relist +1 entry (a new spell);
--   view_events              views (by the listing owner: listing_account_id, 0051).
-- A key whose counts sum to 0 disappears on merge; readers always sum() and GROUP BY (rows of one
-- key are added up only when parts merge). Each table is partitioned by year and sorted by mode,
-- city and type first, so one city and type is one contiguous range.
-- The targets keep a deduplication window like the other stream-fed aggregates (0040): a retried
-- source insert that the source drops must not be counted again here.

-- Per day and neighbourhood: market entries (new listings and relists), exits (rented, withdrawn,
-- expired, net of returns) and views. Listings on the market at the end of day D = the sum of
-- entries - exits over all days <= D.
CREATE TABLE IF NOT EXISTS market_daily_flows
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    day Date,
    neighbourhood String,
    entries Int64,
    exits Int64,
    views Int64
)
ENGINE = SummingMergeTree((entries, exits, views))
PARTITION BY toYear(day)
ORDER BY (is_test, city, property_type, day, neighbourhood)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Exits per month of exit, reason and days on market (whole days from the spell's start to the
-- exit): the velocity medians and quartiles, and the seasonality's days to rent.
CREATE TABLE IF NOT EXISTS market_exit_days
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    month Date,
    neighbourhood String,
    outcome Enum8('rented' = 3, 'withdrawn' = 4, 'expired' = 5),
    days UInt32,
    listings Int64
)
ENGINE = SummingMergeTree((listings))
PARTITION BY toYear(month)
ORDER BY (is_test, city, property_type, month, neighbourhood, outcome, days)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Spells per month of their start (the cohort), by how they stand now: closed ones by reason and
-- days on market (open_since = 1970-01-01), open ones by the day they started (outcome 'open',
-- days = 0; their time on the market is counted at query time). The Kaplan-Meier median reads it.
CREATE TABLE IF NOT EXISTS market_cohort_days
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    month Date,
    neighbourhood String,
    outcome Enum8('open' = 0, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5),
    days UInt32,
    open_since Date,
    listings Int64
)
ENGINE = SummingMergeTree((listings))
PARTITION BY toYear(month)
ORDER BY (is_test, city, property_type, month, neighbourhood, outcome, days, open_since)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Per quarter, neighbourhood and listing owner: entries, exits, rented exits and views. Market share
-- reads it; the stock on the market at the end of quarter Q = the sum of entries - exits over all
-- quarters <= Q.
CREATE TABLE IF NOT EXISTS account_quarter_flows
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    quarter Date,
    neighbourhood String,
    account_id String,
    entries Int64,
    exits Int64,
    rented Int64,
    views Int64
)
ENGINE = SummingMergeTree((entries, exits, rented, views))
PARTITION BY toYear(quarter)
ORDER BY (is_test, city, property_type, quarter, neighbourhood, account_id)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Asking rents of the month's new listings (by listed_at) per bedroom class (0-3, 4 = four or
-- more, 255 = not given) and exact price: the seasonality's mix-adjusted medians (weights over
-- bedroom classes) stay exact like the pricing medians (0012).
CREATE TABLE IF NOT EXISTS city_month_prices
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    month Date,
    bedrooms UInt8,
    price_tzs Float64,
    listings UInt64
)
ENGINE = SummingMergeTree((listings))
PARTITION BY toYear(month)
ORDER BY (is_test, city, property_type, month, bedrooms, price_tzs)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Backfills of rows stored before this migration, each guarded so a re-run cannot count twice
-- (migrations run before the services start; no listing has a status change yet).
INSERT INTO market_daily_flows
SELECT is_test, city, property_type, toDate(listed_at) AS day, neighbourhood,
       count() AS entries, toInt64(0) AS exits, toInt64(0) AS views
FROM listings
WHERE (SELECT count() FROM market_daily_flows) = 0
GROUP BY is_test, city, property_type, day, neighbourhood;

INSERT INTO market_daily_flows
SELECT is_test, city, CAST(type_name AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       toDate(viewed_at) AS day, neighbourhood, toInt64(0) AS entries, toInt64(0) AS exits, count() AS views
FROM (SELECT *, toString(property_type) AS type_name FROM view_events WHERE property_type != 'unknown')
WHERE (SELECT count() FROM market_daily_flows WHERE views != 0) = 0
GROUP BY is_test, city, property_type, day, neighbourhood;

INSERT INTO market_cohort_days
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month, neighbourhood, 'open' AS outcome,
       toUInt32(0) AS days, toDate(listed_at) AS open_since, count() AS listings
FROM listings
WHERE (SELECT count() FROM market_cohort_days) = 0
GROUP BY is_test, city, property_type, month, neighbourhood, open_since;

INSERT INTO account_quarter_flows
SELECT is_test, city, property_type, toStartOfQuarter(listed_at) AS quarter, neighbourhood, account_id,
       count() AS entries, toInt64(0) AS exits, toInt64(0) AS rented, toInt64(0) AS views
FROM listings
WHERE (SELECT count() FROM account_quarter_flows) = 0
GROUP BY is_test, city, property_type, quarter, neighbourhood, account_id;

INSERT INTO city_month_prices
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month,
       if(bedrooms IS NULL, 255, least(assumeNotNull(bedrooms), 4)) AS bedrooms, price_tzs, count() AS listings
FROM listings
WHERE (SELECT count() FROM city_month_prices) = 0
GROUP BY is_test, city, property_type, month, bedrooms, price_tzs;

-- From listings: a stored listing comes on the market on the day of its listed_at.
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_daily_flows_from_listings TO market_daily_flows AS
SELECT is_test, city, property_type, toDate(listed_at) AS day, neighbourhood,
       count() AS entries, toInt64(0) AS exits, toInt64(0) AS views
FROM listings
GROUP BY is_test, city, property_type, day, neighbourhood;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_cohort_days_from_listings TO market_cohort_days AS
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month, neighbourhood,
       CAST('open' AS Enum8('open' = 0, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS outcome,
       toUInt32(0) AS days, toDate(listed_at) AS open_since, count() AS listings
FROM listings
GROUP BY is_test, city, property_type, month, neighbourhood, open_since;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_quarter_flows_from_listings TO account_quarter_flows AS
SELECT is_test, city, property_type, toStartOfQuarter(listed_at) AS quarter, neighbourhood, account_id,
       count() AS entries, toInt64(0) AS exits, toInt64(0) AS rented, toInt64(0) AS views
FROM listings
GROUP BY is_test, city, property_type, quarter, neighbourhood, account_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_city_month_prices TO city_month_prices AS
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month,
       if(bedrooms IS NULL, 255, least(assumeNotNull(bedrooms), 4)) AS bedrooms, price_tzs, count() AS listings
FROM listings
GROUP BY is_test, city, property_type, month, bedrooms, price_tzs;

-- From status changes: each transition as deltas (tuples unrolled by ARRAY JOIN).
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_daily_flows_from_changes TO market_daily_flows AS
SELECT is_test, city, property_type, d.1 AS day, neighbourhood,
       sum(d.2) AS entries, sum(d.3) AS exits, toInt64(0) AS views
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [(toDate(exited_at), toInt64(0), toInt64(1))],
    transition = 'return', [(toDate(exited_at), toInt64(0), toInt64(-1))],
    transition = 'relist', [(toDate(changed_at), toInt64(1), toInt64(0))],
    CAST([], 'Array(Tuple(Date, Int64, Int64))')) AS d
GROUP BY is_test, city, property_type, day, neighbourhood;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_exit_days TO market_exit_days AS
SELECT is_test, city, property_type, toStartOfMonth(exited_at) AS month, neighbourhood,
       CAST(d.1 AS Enum8('rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS outcome, exit_days AS days,
       sum(d.2) AS listings
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [(toString(status), toInt64(1))],
    transition = 'relabel', [(toString(previous_status), toInt64(-1)), (toString(status), toInt64(1))],
    transition = 'return', [(toString(previous_status), toInt64(-1))],
    CAST([], 'Array(Tuple(String, Int64))')) AS d
GROUP BY is_test, city, property_type, month, neighbourhood, outcome, days;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_cohort_days_from_changes TO market_cohort_days AS
SELECT is_test, city, property_type, toStartOfMonth(spell_started_at) AS month, neighbourhood,
       CAST(d.1 AS Enum8('open' = 0, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS outcome,
       d.2 AS days, d.3 AS open_since, sum(d.4) AS listings
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [('open', toUInt32(0), toDate(spell_started_at), toInt64(-1)),
                          (toString(status), exit_days, toDate(0), toInt64(1))],
    transition = 'relabel', [(toString(previous_status), exit_days, toDate(0), toInt64(-1)),
                             (toString(status), exit_days, toDate(0), toInt64(1))],
    transition = 'return', [(toString(previous_status), exit_days, toDate(0), toInt64(-1)),
                            ('open', toUInt32(0), toDate(spell_started_at), toInt64(1))],
    transition = 'relist', [('open', toUInt32(0), toDate(spell_started_at), toInt64(1))],
    CAST([], 'Array(Tuple(String, UInt32, Date, Int64))')) AS d
GROUP BY is_test, city, property_type, month, neighbourhood, outcome, days, open_since;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_quarter_flows_from_changes TO account_quarter_flows AS
SELECT is_test, city, property_type, d.1 AS quarter, neighbourhood, account_id,
       sum(d.2) AS entries, sum(d.3) AS exits, sum(d.4) AS rented, toInt64(0) AS views
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [(toStartOfQuarter(exited_at), toInt64(0), toInt64(1), toInt64(status = 'rented'))],
    transition = 'relabel', [(toStartOfQuarter(exited_at), toInt64(0), toInt64(0),
                              toInt64(status = 'rented') - toInt64(previous_status = 'rented'))],
    transition = 'return', [(toStartOfQuarter(exited_at), toInt64(0), toInt64(-1), -toInt64(previous_status = 'rented'))],
    transition = 'relist', [(toStartOfQuarter(changed_at), toInt64(1), toInt64(0), toInt64(0))],
    CAST([], 'Array(Tuple(Date, Int64, Int64, Int64))')) AS d
GROUP BY is_test, city, property_type, quarter, neighbourhood, account_id;

-- From view events (known listings only).
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_daily_flows_from_views TO market_daily_flows AS
SELECT is_test, city, CAST(type_name AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       toDate(viewed_at) AS day, neighbourhood, toInt64(0) AS entries, toInt64(0) AS exits, count() AS views
FROM (SELECT *, toString(property_type) AS type_name FROM view_events WHERE property_type != 'unknown')
GROUP BY is_test, city, property_type, day, neighbourhood;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_quarter_flows_from_views TO account_quarter_flows AS
SELECT is_test, city, CAST(type_name AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       toStartOfQuarter(viewed_at) AS quarter, neighbourhood, listing_account_id AS account_id,
       toInt64(0) AS entries, toInt64(0) AS exits, toInt64(0) AS rented, count() AS views
FROM (SELECT *, toString(property_type) AS type_name FROM view_events
      WHERE property_type != 'unknown' AND listing_account_id != '')
GROUP BY is_test, city, property_type, quarter, neighbourhood, account_id
