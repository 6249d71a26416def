-- Per month and listing owner, over a whole city and property type: listings listed, market entries
-- (new listings and relists), exits (net of returns), rented exits and views. Seasonality reads it
-- to decide which of a month's market figures may be shown (docs/analytics.md, "Suppression"): each
-- needs 5 other accounts behind it, none above 25 % of the rest. Same deltas as
-- account_quarter_flows (0052) keyed by month instead of quarter and neighbourhood; the stock on the
-- market at the end of month M = account_area_stock (0053) − the net flow of the months after M.
CREATE TABLE IF NOT EXISTS account_month_flows
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    month Date,
    account_id String,
    listed Int64,
    entries Int64,
    exits Int64,
    rented Int64,
    views Int64
)
ENGINE = SummingMergeTree((listed, entries, exits, rented, views))
PARTITION BY toYear(month)
ORDER BY (is_test, city, property_type, month, account_id)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Backfills of rows stored before this migration, each guarded so a re-run cannot count twice: a
-- source whose rows already count here has left non-zero sums behind.
INSERT INTO account_month_flows
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month, account_id,
       count() AS listed, count() AS entries, toInt64(0) AS exits, toInt64(0) AS rented, toInt64(0) AS views
FROM listings
WHERE (SELECT count() FROM account_month_flows WHERE listed != 0) = 0
GROUP BY is_test, city, property_type, month, account_id;

INSERT INTO account_month_flows
SELECT is_test, city, property_type, d.1 AS month, account_id, toInt64(0) AS listed,
       sum(d.2) AS entries, sum(d.3) AS exits, sum(d.4) AS rented, toInt64(0) AS views
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [(toStartOfMonth(exited_at), toInt64(0), toInt64(1), toInt64(status = 'rented'))],
    transition = 'relabel', [(toStartOfMonth(exited_at), toInt64(0), toInt64(0),
                              toInt64(status = 'rented') - toInt64(previous_status = 'rented'))],
    transition = 'return', [(toStartOfMonth(exited_at), toInt64(0), toInt64(-1), -toInt64(previous_status = 'rented'))],
    transition = 'relist', [(toStartOfMonth(changed_at), toInt64(1), toInt64(0), toInt64(0))],
    CAST([], 'Array(Tuple(Date, Int64, Int64, Int64))')) AS d
WHERE (SELECT count() FROM account_month_flows WHERE exits != 0 OR rented != 0 OR entries != listed) = 0
GROUP BY is_test, city, property_type, month, account_id;

INSERT INTO account_month_flows
SELECT is_test, city, CAST(type_name AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       toStartOfMonth(viewed_at) AS month, listing_account_id AS account_id, toInt64(0) AS listed,
       toInt64(0) AS entries, toInt64(0) AS exits, toInt64(0) AS rented, count() AS views
FROM (SELECT *, toString(property_type) AS type_name FROM view_events
      WHERE property_type != 'unknown' AND listing_account_id != '')
WHERE (SELECT count() FROM account_month_flows WHERE views != 0) = 0
GROUP BY is_test, city, property_type, month, account_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_month_flows_from_listings TO account_month_flows AS
SELECT is_test, city, property_type, toStartOfMonth(listed_at) AS month, account_id,
       count() AS listed, count() AS entries, toInt64(0) AS exits, toInt64(0) AS rented, toInt64(0) AS views
FROM listings
GROUP BY is_test, city, property_type, month, account_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_month_flows_from_changes TO account_month_flows AS
SELECT is_test, city, property_type, d.1 AS month, account_id, toInt64(0) AS listed,
       sum(d.2) AS entries, sum(d.3) AS exits, sum(d.4) AS rented, toInt64(0) AS views
FROM listing_status_changes
ARRAY JOIN multiIf(
    transition = 'exit', [(toStartOfMonth(exited_at), toInt64(0), toInt64(1), toInt64(status = 'rented'))],
    transition = 'relabel', [(toStartOfMonth(exited_at), toInt64(0), toInt64(0),
                              toInt64(status = 'rented') - toInt64(previous_status = 'rented'))],
    transition = 'return', [(toStartOfMonth(exited_at), toInt64(0), toInt64(-1), -toInt64(previous_status = 'rented'))],
    transition = 'relist', [(toStartOfMonth(changed_at), toInt64(1), toInt64(0), toInt64(0))],
    CAST([], 'Array(Tuple(Date, Int64, Int64, Int64))')) AS d
GROUP BY is_test, city, property_type, month, account_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_month_flows_from_views TO account_month_flows AS
SELECT is_test, city, CAST(type_name AS Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       toStartOfMonth(viewed_at) AS month, listing_account_id AS account_id, toInt64(0) AS listed,
       toInt64(0) AS entries, toInt64(0) AS exits, toInt64(0) AS rented, count() AS views
FROM (SELECT *, toString(property_type) AS type_name FROM view_events
      WHERE property_type != 'unknown' AND listing_account_id != '')
GROUP BY is_test, city, property_type, month, account_id
