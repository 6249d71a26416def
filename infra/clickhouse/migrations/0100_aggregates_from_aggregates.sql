-- Three aggregates fed from a narrower aggregate instead of from every block of `listings`: a
-- view's SELECT over the raw block (tens of thousands of rows, string keys hashed) costs the
-- insert CPU; over the block the first view already grouped, a few hundred rows. The counts are
-- the same integers (docs/performance.md, "The warehouse's share"). A view on a view's target runs
-- for each block that view writes there (and for direct inserts into it), never on merges.
--
-- account_area_stock (stock now, 0053) = the per-quarter flows summed over quarters: entries
-- (stored listings and relists) minus exits (exits, net of returns); relabels and views change
-- neither, so rows with entries = exits add nothing. Replaces its views from listings and from
-- status changes.
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_account_area_stock_from_flows TO account_area_stock AS
SELECT is_test, city, property_type, neighbourhood, account_id, sum(entries - exits) AS listings
FROM account_quarter_flows
WHERE entries != exits
GROUP BY is_test, city, property_type, neighbourhood, account_id;

DROP VIEW IF EXISTS mv_account_area_stock_from_listings;

DROP VIEW IF EXISTS mv_account_area_stock_from_changes;

-- The listing counts and price sums of neighbourhood_quarter_stats (0010) = the per-price counts of
-- neighbourhood_quarter_prices (0012) summed over prices. Its views part still comes from
-- view_events.
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_neighbourhood_quarter_stats_from_prices TO neighbourhood_quarter_stats AS
SELECT is_test, quarter,
       CAST(type_name AS Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)) AS property_type,
       city, neighbourhood, sum(n) AS listings, sum(price_tzs * n) AS price_tzs_sum, toUInt64(0) AS views
FROM (SELECT *, toString(property_type) AS type_name, listings AS n FROM neighbourhood_quarter_prices)
GROUP BY is_test, quarter, property_type, city, neighbourhood;

DROP VIEW IF EXISTS mv_neighbourhood_quarter_stats_from_listings;

-- The open spells of market_cohort_days (0052) by start day = the market entries of
-- market_daily_flows by day: a stored listing enters on the day of its listed_at, a relist on the
-- day it starts its new spell (its changed_at), the same days the cohort rows were keyed by. So
-- the cohort's open rows of entries come from the flows, and its view from status changes keeps
-- only what exits, relabels and returns do to the cohorts (a relist is no longer counted there).
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_market_cohort_days_from_flows TO market_cohort_days AS
SELECT is_test, city, property_type, toStartOfMonth(day) AS month, neighbourhood,
       CAST('open' AS Enum8('open' = 0, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS outcome,
       toUInt32(0) AS days, day AS open_since, sum(entries) AS listings
FROM market_daily_flows
WHERE entries != 0
GROUP BY is_test, city, property_type, month, neighbourhood, open_since;

DROP VIEW IF EXISTS mv_market_cohort_days_from_listings;

DROP VIEW IF EXISTS mv_market_cohort_days_from_changes;

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
    CAST([], 'Array(Tuple(String, UInt32, Date, Int64))')) AS d
GROUP BY is_test, city, property_type, month, neighbourhood, outcome, days, open_since
