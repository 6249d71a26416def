-- The account that owns the viewed listing, set by the stream from the listing it looked up for the
-- view (listing_lookup), so market share can count views per listing owner without a join.
-- `account_id` stays the account whose key posted the view (a portal key posts views for any
-- listing). '' when the listing was unknown at store time, and for views stored before this
-- migration (those still count in pricing, heatmap and seasonality, but not in market share).
ALTER TABLE view_events ADD COLUMN IF NOT EXISTS listing_account_id String DEFAULT '' AFTER property_type;

CREATE OR REPLACE VIEW v_view_events AS
SELECT event_id, listing_id, account_id, is_test, viewed_at, received_at, h3_index, city,
       neighbourhood, property_type, listing_account_id
FROM view_events
