-- Stable read surface for analysts and data engineers (columns only ever added). Base tables may
-- change shape; these views do not. Documented in docs/stream.md, "Schema for data engineers".
-- v_current_listings: one row per listing id, the latest version (FINAL), without Kafka provenance.
CREATE VIEW IF NOT EXISTS v_current_listings AS
SELECT
    listing_id, account_id, batch_id, is_test, listed_at, stored_at, title, description,
    property_type, price, currency, price_tzs, fx_rate_to_tzs, bedrooms, bathrooms, area_sqm,
    address, latitude, longitude, amenities, images, video_url, whatsapp_number, location_id,
    external_id, h3_index, city, neighbourhood, neighbourhood_id, location_source, version
FROM listings FINAL;

-- v_view_events: one row per stored view event; h3_index = 0 / city = '' when the listing was unknown.
CREATE VIEW IF NOT EXISTS v_view_events AS
SELECT event_id, listing_id, account_id, is_test, viewed_at, received_at, h3_index, city,
       neighbourhood, property_type
FROM view_events
