-- Listing lifecycle (docs/lifecycle.md): a listing is on the market (active, under_contract) until
-- it leaves it (rented, withdrawn, expired), and may come back. The stream's status processor
-- (stream/lifecycle/) writes one row per applied change into listing_status_changes; the current
-- state of every listing is kept in listing_states by two materialized views (a stored listing
-- starts active; every change writes the state after it) and by the processor itself (re-sends
-- that change nothing but the expiry clock).
--
-- Columns the processor computes when it applies a change, so the market aggregates (0051) are
-- plain materialized views and never need the history:
--   transition        what the change does to the listing's market spell (a spell = from coming on
--                     the market to leaving it): exit (on → off), relabel (off → off: the exit's
--                     reason changes), return (off → on within 30 days: the spell continues and
--                     the exit is undone), relist (off → on after more than 30 days: a new spell
--                     starts at changed_at), none (active ↔ under_contract).
--   spell_started_at  start of the spell the listing is in after the change (listed_at, or the
--                     time of a relist).
--   exited_at         the exit that this change makes (exit), relabels or undoes (relabel, return);
--                     1970-01-01 otherwise.
--   exit_days         whole days from spell_started_at to exited_at (days on market of that exit).
-- Partitioned by the listing's year (listed_at never changes), so a listing's history and state
-- stay in one partition.
CREATE TABLE IF NOT EXISTS listing_status_changes
(
    listing_id UUID,
    account_id String,
    is_test UInt8,
    external_id String,
    listed_at DateTime('UTC'),
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    city String,
    neighbourhood String,
    status Enum8('active' = 1, 'under_contract' = 2, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5),
    previous_status Enum8('active' = 1, 'under_contract' = 2, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5),
    changed_at DateTime('UTC'),
    recorded_at DateTime('UTC'),
    source Enum8('api' = 1, 'snapshot' = 2, 'expiry' = 3, 'resend' = 4),
    snapshot_id String,
    rent_agreed Nullable(Float64),
    rent_currency Nullable(Enum8('TZS' = 1, 'USD' = 2)),
    rent_agreed_tzs Nullable(Float64),
    transition Enum8('none' = 0, 'exit' = 1, 'relabel' = 2, 'return' = 3, 'relist' = 4),
    spell_started_at DateTime('UTC'),
    exited_at DateTime('UTC'),
    exit_days UInt32,
    version UInt32,
    _topic String,
    _partition UInt32,
    _offset UInt64,
    _item UInt16
)
ENGINE = MergeTree
PARTITION BY toYear(listed_at)
ORDER BY (listing_id, version)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- The current state of every listing, one row per listing after merges (read with FINAL). Same
-- sort key as `listings`, so v_current_listings joins them range by range: a filter on mode, city
-- and type reaches both sides. Lookups by id go through listing_lookup (sorted by id) first.
-- updated_at: the last time the listing was stored, re-sent or changed — the expiry clock
-- (a listing on the market whose updated_at is more than 60 days old expires).
CREATE TABLE IF NOT EXISTS listing_states
(
    listing_id UUID,
    account_id String,
    is_test UInt8,
    external_id String,
    listed_at DateTime('UTC'),
    property_type Enum8('apartment' = 1, 'house' = 2, 'studio' = 3, 'room' = 4, 'commercial' = 5, 'land' = 6),
    city String,
    neighbourhood String,
    status Enum8('active' = 1, 'under_contract' = 2, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5),
    status_at DateTime('UTC'),
    spell_started_at DateTime('UTC'),
    exited_at DateTime('UTC'),
    exit_days UInt32,
    updated_at DateTime('UTC'),
    version UInt32
)
ENGINE = ReplacingMergeTree(version)
PARTITION BY toYear(listed_at)
ORDER BY (is_test, city, property_type, listing_id)
SETTINGS index_granularity = 1024, non_replicated_deduplication_window = 1000;

-- Listings stored before this migration start active (guarded against a second run).
INSERT INTO listing_states
SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
       'active', listed_at, listed_at, toDateTime(0, 'UTC'), 0, stored_at, 0
FROM listings
WHERE (SELECT count() FROM listing_states) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS mv_listing_states_from_listings TO listing_states AS
SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
       CAST('active' AS Enum8('active' = 1, 'under_contract' = 2, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS status,
       listed_at AS status_at, listed_at AS spell_started_at, toDateTime(0, 'UTC') AS exited_at,
       toUInt32(0) AS exit_days, stored_at AS updated_at, toUInt32(0) AS version
FROM listings;

-- The state after each change. A change is activity too: it restarts the expiry clock.
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_listing_states_from_changes TO listing_states AS
SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
       status, changed_at AS status_at, spell_started_at,
       if(status IN ('rented', 'withdrawn', 'expired'), exited_at, toDateTime(0, 'UTC')) AS exited_at,
       if(status IN ('rented', 'withdrawn', 'expired'), exit_days, 0) AS exit_days,
       recorded_at AS updated_at, version
FROM listing_status_changes;

-- Read surfaces (columns only ever added). v_current_listings gains the current status; the join
-- is on the full sort key, so a filter on is_test, city or property_type prunes both sides.
CREATE VIEW IF NOT EXISTS v_listing_status_changes AS
SELECT listing_id, account_id, is_test, external_id, listed_at, property_type, city, neighbourhood,
       status, previous_status, changed_at, recorded_at, source, snapshot_id, rent_agreed,
       rent_currency, rent_agreed_tzs, transition, spell_started_at, exited_at, exit_days, version
FROM listing_status_changes;

CREATE OR REPLACE VIEW v_current_listings AS
SELECT
    l.listing_id AS listing_id, l.account_id AS account_id, l.batch_id AS batch_id,
    l.is_test AS is_test, l.listed_at AS listed_at, l.stored_at AS stored_at, l.title AS title,
    l.description AS description, l.property_type AS property_type, l.price AS price,
    l.currency AS currency, l.price_tzs AS price_tzs, l.fx_rate_to_tzs AS fx_rate_to_tzs,
    l.bedrooms AS bedrooms, l.bathrooms AS bathrooms, l.area_sqm AS area_sqm, l.address AS address,
    l.latitude AS latitude, l.longitude AS longitude, l.amenities AS amenities, l.images AS images,
    l.video_url AS video_url, l.whatsapp_number AS whatsapp_number, l.location_id AS location_id,
    l.external_id AS external_id, l.h3_index AS h3_index, l.city AS city,
    l.neighbourhood AS neighbourhood, l.neighbourhood_id AS neighbourhood_id,
    l.location_source AS location_source, l.version AS version,
    -- A listing whose state row is not merged in yet (just stored) is active.
    CAST(ifNull(toString(s.status), 'active') AS Enum8('active' = 1, 'under_contract' = 2, 'rented' = 3, 'withdrawn' = 4, 'expired' = 5)) AS status,
    ifNull(s.status_at, l.listed_at) AS status_at,
    ifNull(s.spell_started_at, l.listed_at) AS spell_started_at,
    ifNull(s.updated_at, l.stored_at) AS updated_at
FROM listings AS l FINAL
LEFT JOIN
(
    SELECT is_test, city, property_type, listing_id, status, status_at, spell_started_at, updated_at
    FROM listing_states FINAL
) AS s ON s.is_test = l.is_test AND s.city = l.city AND s.property_type = l.property_type
      AND s.listing_id = l.listing_id
SETTINGS join_use_nulls = 1
