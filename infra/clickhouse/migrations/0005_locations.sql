-- The locations dataset (infra/locations/locations.json): cities of spec 4.3 and their
-- neighbourhoods, keyed by the stable UUID clients send as `location_id`. The migration runner
-- (re)loads it after migrating whenever the JSON's version is newer than the stored one; rows of a
-- newer version replace older ones per id. Read it through `v_locations` (deduplicated).
CREATE TABLE IF NOT EXISTS locations
(
    id UUID,
    kind Enum8('city' = 1, 'neighbourhood' = 2),
    city String,
    slug String,
    name String,
    latitude Float64,
    longitude Float64,
    radius_km Float64,
    version UInt32
)
ENGINE = ReplacingMergeTree(version)
ORDER BY id;

CREATE VIEW IF NOT EXISTS v_locations AS
SELECT id, kind, city, slug, name, latitude, longitude, radius_km, version
FROM locations FINAL
