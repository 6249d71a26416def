-- The resolved neighbourhood's id from the locations dataset (join key to `locations.id`), next to
-- its name. NULL when the stream could resolve no neighbourhood (city only, or nothing).
ALTER TABLE listings ADD COLUMN neighbourhood_id Nullable(UUID) AFTER neighbourhood
