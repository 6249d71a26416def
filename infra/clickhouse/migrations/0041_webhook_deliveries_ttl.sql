-- The webhook delivery log is an operational record (docs/webhooks.md, "Delivery log"): kept
-- 90 days, then dropped by ClickHouse itself (whole monthly partitions once all their rows expire).
ALTER TABLE webhook_deliveries MODIFY TTL attempted_at + INTERVAL 90 DAY;
