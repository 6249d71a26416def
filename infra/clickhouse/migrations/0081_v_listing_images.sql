-- The read surface of listing_images for data engineers (README, "SQL schema for data engineers"):
-- one row per listing image, latest analysis, without the Kafka provenance.
CREATE VIEW IF NOT EXISTS v_listing_images AS
SELECT listing_id, image_index, batch_id, account_id, is_test, url, analysed_at, outcome, error,
       bytes, format, width, height, phash, phash_mirrored, brightness, is_dark, is_overexposed,
       sharpness, is_blurry, tags, tag_confidences, image_of, tag_model, reused_photo,
       reused_listing_id, reused_account_id, reused_image_index, reused_distance, analyse_ms
FROM listing_images FINAL;
