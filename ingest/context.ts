// Composition root of the ingest API: builds its clients once and hands them to the routes.
import type { Producer } from 'kafkajs';
import { createProducer } from '../common/clients/kafka.ts';
import type { Platform } from '../common/platform.ts';

export interface IngestContext {
  platform: Platform;
  producer: Producer;
  close(): Promise<void>;
}

export async function createIngestContext(platform: Platform): Promise<IngestContext> {
  const producer = await createProducer(platform.kafka);
  return {
    platform,
    producer,
    async close() {
      await producer.disconnect().catch(() => undefined);
    },
  };
}
