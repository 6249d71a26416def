-- Usage of API keys per UTC day, rolled up from the Redis hot-path counters by the stream worker's
-- scheduler (common/usage/rollup.ts). Each rollup writes the day's absolute counter values again,
-- so rows are snapshots: the latest `version` per (account_id, key_id, day, metric, endpoint) wins.
-- Query v_api_key_usage_daily (one row per key, day, metric, endpoint), not the table.
-- metric: requests (endpoint ''), requests_by_endpoint (endpoint 'GET /analytics/pricing', ...),
-- rate_limited, listings_created, listings_duplicates, listings_failed.
CREATE TABLE IF NOT EXISTS api_key_usage_daily
(
    day Date,
    account_id String,
    key_id String,
    mode Enum8('live' = 1, 'test' = 2),
    tier Enum8('free' = 1, 'pro' = 2, 'business' = 3, 'enterprise' = 4),
    metric String,
    endpoint String,
    value UInt64,
    version UInt64,
    rolled_up_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(day)
ORDER BY (account_id, key_id, day, metric, endpoint);

CREATE VIEW IF NOT EXISTS v_api_key_usage_daily AS
SELECT
    day,
    account_id,
    key_id,
    argMax(mode, version) AS mode,
    argMax(tier, version) AS tier,
    metric,
    endpoint,
    argMax(value, version) AS value,
    max(rolled_up_at) AS rolled_up_at
FROM api_key_usage_daily
GROUP BY day, account_id, key_id, metric, endpoint;
