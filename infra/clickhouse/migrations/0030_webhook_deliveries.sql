-- One row per webhook delivery attempt (docs/webhooks.md, "Delivery log"). Written by the stream's
-- delivery worker after each attempt; (delivery_id, attempt) identifies a row, so a re-logged
-- attempt collapses on merge (ReplacingMergeTree, query with FINAL for exact counts).
CREATE TABLE IF NOT EXISTS webhook_deliveries
(
    delivery_id String,
    attempt UInt16,
    webhook_id String,
    account_id String,
    is_test UInt8,
    event_type String,
    event_id String,
    url String,
    attempted_at DateTime('UTC'),
    duration_ms UInt32,
    status_code UInt16,
    outcome Enum8('succeeded' = 1, 'retrying' = 2, 'failed' = 3, 'gone' = 4, 'dropped' = 5),
    error String,
    next_attempt_at Nullable(DateTime('UTC')),
    worker_id String
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(attempted_at)
ORDER BY (account_id, webhook_id, delivery_id, attempt)
SETTINGS index_granularity = 8192;
