-- Listings on the market NOW per (mode, city, type, neighbourhood, listing owner): market share's
-- stock without summing every quarter of account_quarter_flows. Stock at the end of a past quarter
-- = this − the net flow (entries − exits) of the quarters after it, so the current quarter reads
-- one row per neighbourhood and account instead of one per quarter too (Dar es Salaam apartments
-- of the 10 M-listing benchmark: ~80 k rows instead of ~650 k; docs/analytics.md, "Benchmark").
-- Signed counts kept by materialized views like 0052: +1 for a stored listing and for a relist,
-- -1 for an exit, +1 for a return (the exit undone); a relabel changes nothing.
CREATE TABLE IF NOT EXISTS account_area_stock
(
    is_test UInt8,
    city String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    neighbourhood String,
    account_id String,
    listings Int64
)
ENGINE = SummingMergeTree((listings))
ORDER BY (is_test, city, property_type, neighbourhood, account_id)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Backfill from the per-quarter flows (same sources, same deltas), guarded against a second run.
INSERT INTO account_area_stock
SELECT is_test, city, property_type, neighbourhood, account_id, sum(entries - exits) AS listings
FROM account_quarter_flows
WHERE (SELECT count() FROM account_area_stock) = 0
GROUP BY is_test, city, property_type, neighbourhood, account_id
HAVING listings != 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_area_stock_from_listings TO account_area_stock AS
SELECT is_test, city, property_type, neighbourhood, account_id, count() AS listings
FROM listings
GROUP BY is_test, city, property_type, neighbourhood, account_id;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_area_stock_from_changes TO account_area_stock AS
SELECT is_test, city, property_type, neighbourhood, account_id,
       sum(multiIf(transition = 'exit', -1, transition IN ('return', 'relist'), 1, 0)) AS listings
FROM listing_status_changes
WHERE transition IN ('exit', 'return', 'relist')
GROUP BY is_test, city, property_type, neighbourhood, account_id
