-- The stream sends insert_deduplication_token with every insert (stream/sink/insert-token.ts,
-- derived from the Kafka positions of the rows), so a retried insert whose first attempt was
-- committed unheard is dropped by the server. Non-replicated MergeTree tables remember tokens
-- only with a deduplication window: on the tables the stream writes, and on the tables their
-- materialized views feed (the view's block gets a token derived from the source's; without a
-- window there, the aggregates would count the repeat although the source dropped it).
-- A window remembers the hashes of the last N inserted blocks (a few KB each in the table's
-- metadata); 1,000 inserts is minutes of writer flushes, far longer than any retry.
-- Inserts by hand into these tables without a token are deduplicated by block content: set
-- insert_deduplicate = 0 to load identical blocks on purpose (infra/clickhouse/README.md).
ALTER TABLE listings MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE view_events MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE quarantine MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE image_checks MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE listing_lookup MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE neighbourhood_quarter_stats MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE cell_quarter_stats MODIFY SETTING non_replicated_deduplication_window = 1000;
ALTER TABLE neighbourhood_quarter_prices MODIFY SETTING non_replicated_deduplication_window = 1000;
