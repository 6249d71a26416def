-- Listing views (contract, "View events"), one row per event_id, enriched by the stream with the
-- viewed listing's cell, city, neighbourhood and type so demand aggregates need no join.
-- Views of listings the stream cannot find are stored with h3_index = 0 and city = ''.
CREATE TABLE IF NOT EXISTS view_events
(
    event_id String,
    listing_id UUID,
    account_id String,
    is_test UInt8,
    viewed_at DateTime('UTC'),
    received_at DateTime('UTC'),
    h3_index UInt64,
    city String,
    neighbourhood String,
    property_type Enum8('unknown' = 0, 'apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    _topic String,
    _partition UInt32,
    _offset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(viewed_at)
ORDER BY (is_test, city, viewed_at, h3_index)
