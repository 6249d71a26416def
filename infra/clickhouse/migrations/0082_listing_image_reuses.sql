-- Photo reuse seen from the earlier listing (docs/webhooks.md, "Photo tagging and reuse"): when a
-- photo is found to be a near-copy of another listing's photo, listing_images flags the later one
-- (reused_listing_id, reused_image_index name the earlier). Both share the photo, whoever posted it
-- first — otherwise posting a copy of a competitor's photo first would make the competitor's genuine
-- listing the only one flagged. This table holds each match under the earlier listing, sorted for
-- GET /listings/{id}, which reads it by listing_id (the earlier listing's id).
CREATE TABLE IF NOT EXISTS listing_image_reuses
(
    listing_id UUID,
    image_index UInt16,
    reused_by_listing_id UUID,
    reused_by_image_index UInt16,
    is_test UInt8,
    analysed_at DateTime('UTC')
)
ENGINE = ReplacingMergeTree()
ORDER BY (listing_id, image_index, reused_by_listing_id, reused_by_image_index)
SETTINGS index_granularity = 8192, non_replicated_deduplication_window = 1000;

-- Matches stored before this migration (guarded against a second run). Same SELECT as the view.
INSERT INTO listing_image_reuses
SELECT assumeNotNull(reused_listing_id), reused_image_index, listing_id, image_index, is_test, analysed_at
FROM listing_images
WHERE reused_photo = 1 AND reused_listing_id IS NOT NULL
  AND (SELECT count() FROM listing_image_reuses) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_listing_image_reuses TO listing_image_reuses AS
SELECT assumeNotNull(reused_listing_id) AS listing_id, reused_image_index AS image_index,
       listing_id AS reused_by_listing_id, image_index AS reused_by_image_index, is_test, analysed_at
FROM listing_images
WHERE reused_photo = 1 AND reused_listing_id IS NOT NULL;
