-- The listing item within its Kafka message (see 0008_provenance_item.sql) for image checks.
ALTER TABLE image_checks ADD COLUMN _item UInt16 DEFAULT 0 AFTER _offset;
