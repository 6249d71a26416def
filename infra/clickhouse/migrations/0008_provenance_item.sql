-- Provenance gains `_item`: the position of a row's item within its Kafka message. The ingest API
-- publishes one message per request holding all its listings (message v2), so (_offset, _item),
-- not _offset alone, identifies what a replay must skip. 0 for single-item messages (v1, views).
ALTER TABLE listings ADD COLUMN _item UInt16 DEFAULT 0 AFTER _offset;
ALTER TABLE quarantine ADD COLUMN _item UInt16 DEFAULT 0 AFTER _offset;
ALTER TABLE view_events ADD COLUMN _item UInt16 DEFAULT 0 AFTER _offset;
