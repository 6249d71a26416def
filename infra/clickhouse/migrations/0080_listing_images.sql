-- One row per listing image as the stream's photo analysis saw it (docs/webhooks.md, "Photo
-- tagging and reuse"), written by the image checker next to its image_checks row: what the
-- decoded photo is (format, size), its 64-bit perceptual hash (and that of the mirrored photo),
-- brightness and blur flags, the RESO ImageOf tags of the photo model, and whether the same photo
-- is on another account's listing. Every image gets a row, also one that could not be analysed
-- (`outcome` says why). Replays write the same (listing_id, image_index) again: read with FINAL
-- (or v_listing_images).
CREATE TABLE IF NOT EXISTS listing_images
(
    listing_id UUID,
    image_index UInt16,
    batch_id UUID,
    account_id String,
    is_test UInt8,
    url String,
    analysed_at DateTime('UTC'),
    -- decoded: every field below is filled; any other outcome leaves them 0/'' (error says why).
    outcome Enum8('decoded' = 1, 'not_checked' = 2, 'download_failed' = 3, 'too_large' = 4,
                  'not_an_image' = 5, 'too_many_pixels' = 6, 'too_small' = 7),
    error String,
    bytes UInt32,
    format LowCardinality(String),
    width UInt32,
    height UInt32,
    phash UInt64,
    phash_mirrored UInt64,
    brightness Float32,
    is_dark UInt8,
    is_overexposed UInt8,
    sharpness Float32,
    is_blurry UInt8,
    tags Array(LowCardinality(String)),
    tag_confidences Array(Float32),
    image_of LowCardinality(String),
    tag_model LowCardinality(String),
    reused_photo UInt8,
    reused_listing_id Nullable(UUID),
    reused_account_id String,
    reused_image_index UInt16,
    reused_distance UInt8,
    analyse_ms UInt32,
    _topic String,
    _partition UInt32,
    _offset UInt64,
    _item UInt16
)
ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(analysed_at)
ORDER BY (listing_id, image_index)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 1000;
