-- One row per checked listing image (docs/webhooks.md, "Image checks"), written by the stream's
-- image checker. _topic/_partition/_offset are the Kafka provenance of the listing message: a
-- replayed range is skipped, and (listing_id, image_index) collapses repeats on merge.
CREATE TABLE IF NOT EXISTS image_checks
(
    listing_id UUID,
    image_index UInt16,
    batch_id UUID,
    account_id String,
    is_test UInt8,
    url String,
    checked_at DateTime('UTC'),
    method Enum8('none' = 0, 'HEAD' = 1, 'GET' = 2),
    is_reachable UInt8,
    status_code UInt16,
    content_type String,
    is_ok UInt8,
    error String,
    duration_ms UInt32,
    _topic String,
    _partition UInt32,
    _offset UInt64
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(checked_at)
ORDER BY (listing_id, image_index)
SETTINGS index_granularity = 8192;
