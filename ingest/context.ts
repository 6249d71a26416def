// Composition root of the ingest API: builds its clients and stores once and hands them to the routes.
import type { Producer } from 'kafkajs';
import { batchStore, type BatchStore } from '../common/batches.ts';
import { createProducer } from '../common/clients/kafka.ts';
import type { Platform } from '../common/platform.ts';
import { idempotencyStore, type IdempotencyStore } from './idempotency.ts';
import { coalescingPublisher, type Publisher } from './publisher.ts';
import { seenStore, type SeenStore } from './listings/seen-store.ts';

export interface IngestContext {
  platform: Platform;
  producer: Producer;
  /** Kafka publishing for request paths: concurrent requests share produce requests. */
  publisher: Publisher;
  batches: BatchStore;
  seen: SeenStore;
  idempotency: IdempotencyStore;
  close(): Promise<void>;
}

export async function createIngestContext(platform: Platform): Promise<IngestContext> {
  const producer = await createProducer(platform.kafka);
  const prefix = platform.env.REDIS_KEY_PREFIX;
  return {
    platform,
    producer,
    publisher: coalescingPublisher(producer),
    batches: batchStore(platform.redis, prefix),
    seen: seenStore(platform.redis, prefix),
    idempotency: idempotencyStore(platform.redis, prefix),
    async close() {
      await producer.disconnect().catch(() => undefined);
    },
  };
}
