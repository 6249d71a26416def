-- Every stored listing, one row per listing id (the stream writes each id once; see README).
-- Sort key serves the analytics (mode, city, type, then time); partitions are months.
-- _topic/_partition/_offset record where the row came from, so a replayed Kafka range is skipped.
CREATE TABLE IF NOT EXISTS listings
(
    listing_id UUID,
    account_id String,
    batch_id UUID,
    is_test UInt8,
    listed_at DateTime('UTC'),
    stored_at DateTime('UTC'),
    title String,
    description String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    price Float64,
    currency Enum8('TZS' = 1, 'USD' = 2),
    price_tzs Float64,
    fx_rate_to_tzs Float64,
    bedrooms Nullable(UInt16),
    bathrooms Nullable(UInt16),
    area_sqm Nullable(Float64),
    address String,
    latitude Nullable(Float64),
    longitude Nullable(Float64),
    amenities Array(String),
    images Array(String),
    video_url String,
    whatsapp_number String,
    location_id Nullable(UUID),
    external_id String,
    h3_index UInt64,
    city String,
    neighbourhood String,
    location_source Enum8('none' = 0, 'location_id' = 1, 'coordinates' = 2, 'address' = 3),
    version UInt32,
    _topic String,
    _partition UInt32,
    _offset UInt64
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYYYYMM(listed_at)
ORDER BY (is_test, city, property_type, listing_id)
SETTINGS index_granularity = 8192
