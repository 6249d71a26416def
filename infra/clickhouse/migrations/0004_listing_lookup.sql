-- Listings by id: the stream's duplicate check before insert and the enrichment of view events
-- read this instead of scanning `listings` (whose sort key serves the analytics).
CREATE TABLE IF NOT EXISTS listing_lookup
(
    listing_id UUID,
    account_id String,
    is_test UInt8,
    h3_index UInt64,
    city String,
    neighbourhood String,
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6)
)
ENGINE = ReplacingMergeTree
ORDER BY listing_id
SETTINGS index_granularity = 1024;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_listing_lookup TO listing_lookup AS
SELECT listing_id, account_id, is_test, h3_index, city, neighbourhood, property_type
FROM listings
