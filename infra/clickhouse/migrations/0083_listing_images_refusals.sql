-- Photo outcomes of the decoder's safety checks (docs/webhooks.md, "Photo tagging and reuse"): a
-- body that is not JPEG, PNG, WebP, GIF or AVIF by its magic bytes, a JPEG with absurdly many
-- scans, and a decode stopped at its deadline.
ALTER TABLE listing_images MODIFY COLUMN outcome
    Enum8('decoded' = 1, 'not_checked' = 2, 'download_failed' = 3, 'too_large' = 4,
          'not_an_image' = 5, 'too_many_pixels' = 6, 'too_small' = 7,
          'unsupported_format' = 8, 'too_many_scans' = 9, 'decode_timeout' = 10);
