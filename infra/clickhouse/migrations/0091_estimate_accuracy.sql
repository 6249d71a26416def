-- Measured accuracy of the rent estimate (docs/analytics.md, "Backtest"), one row per backtest run,
-- mode and segment, written by the backtest (npm run backtest; daily in the stream worker). The
-- estimate endpoint reads the latest run of its mode: the segment's figures go into every answer
-- and the interval factors calibrate its low/high.
--   segment        city × property_type × bedrooms ('0'…'4', '5+', 'unknown'); '*' rows pool a
--                  level: (city, type, '*'), ('*', type, '*'), ('*', '*', '*')
--   subjects       listings first listed in the backtested months; n of them had ≥ 5 comparables
--   interval_*     interval_low/high multiply the estimate (published interval); interval_level is
--                  the pooling level they come from (segment, city_type, type, all: the first with
--                  ≥ 30 estimates); interval_coverage is measured with factors that left the month
--                  out (each month's intervals calibrated on the other months)
--   baseline_*     the naive baseline: median asking rent of the segment over the 90 days before
--   paired_*       estimate and baseline on the listings both could estimate
CREATE TABLE IF NOT EXISTS estimate_accuracy
(
    run_id UUID,
    run_at DateTime('UTC'),
    is_test UInt8,
    city String,
    property_type String,
    bedrooms String,
    from_month Date,
    to_month Date,
    subjects UInt32,
    n UInt32,
    median_ape Nullable(Float64),
    within_10pct Nullable(Float64),
    within_20pct Nullable(Float64),
    interval_target Float64,
    interval_coverage Nullable(Float64),
    interval_low Float64,
    interval_high Float64,
    interval_level LowCardinality(String),
    baseline_n UInt32,
    baseline_median_ape Nullable(Float64),
    baseline_within_10pct Nullable(Float64),
    baseline_within_20pct Nullable(Float64),
    paired_n UInt32,
    paired_median_ape Nullable(Float64),
    paired_baseline_median_ape Nullable(Float64)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(run_at)
ORDER BY (is_test, run_at, property_type, city, bedrooms)
TTL run_at + INTERVAL 400 DAY
