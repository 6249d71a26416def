-- Messages the stream could not store (unparseable, invalid, or refused by ClickHouse), with the
-- error. The same message also goes to the dead-letter topic. Carries provenance like base tables.
CREATE TABLE IF NOT EXISTS quarantine
(
    quarantined_at DateTime('UTC'),
    source String,
    error String,
    payload String,
    _topic String,
    _partition UInt32,
    _offset UInt64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(quarantined_at)
ORDER BY (_topic, _partition, _offset)
