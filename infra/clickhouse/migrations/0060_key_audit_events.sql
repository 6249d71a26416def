-- One row per change of an API key: created, rolled or revoked, over the API by an admin key or by
-- the operator's CLI (docs/auth.md, "Audit of key changes"). Written from the key audit outbox in
-- Redis (common/auth/key-audit-flush.ts), one insert per event with insert_deduplication_token =
-- event_id, so the deduplication window below makes a re-sent event a no-op and plain MergeTree
-- holds each event once (count() needs no FINAL). Kept without TTL: it is the security record.
-- action: create (key_id = the new key), roll (key_id = the old key, new_key_id = its replacement,
-- expires_at = end of the old key's grace period), revoke. An expiry after a roll is not a
-- separate event: the roll row says when it happens.
CREATE TABLE IF NOT EXISTS key_audit_events
(
    event_id UUID,
    occurred_at DateTime('UTC'),
    action Enum8('create' = 1, 'roll' = 2, 'revoke' = 3),
    source Enum8('api' = 1, 'cli' = 2),
    account_id String,
    actor_key_id String,
    client_ip String,
    operator String,
    request_id String,
    key_id String,
    key_prefix String,
    key_name String,
    mode Enum8('live' = 1, 'test' = 2),
    tier Enum8('free' = 1, 'pro' = 2, 'business' = 3, 'enterprise' = 4),
    role Enum8('standard' = 1, 'portal' = 2, 'admin' = 3),
    new_key_id String,
    expires_at Nullable(DateTime('UTC'))
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(occurred_at)
ORDER BY (account_id, occurred_at, event_id)
SETTINGS non_replicated_deduplication_window = 1000;
