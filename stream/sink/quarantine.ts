// Poison messages: stored in the quarantine table (same provenance columns, so the high-water mark
// moves past them) and copied to the dead-letter topic, without blocking their partition.
import type { KafkaMessage, Producer } from 'kafkajs';
import type { Provenance } from '../offset-consumer.ts';
import type { ClickHouseWriter } from './clickhouse-writer.ts';

export interface Quarantine {
  rows(entries: { message: KafkaMessage; error: string; provenance: Provenance }[]): Promise<void>;
}

export function createQuarantine(
  writer: ClickHouseWriter,
  producer: Producer,
  deadLetterTopic: string,
  source: string,
): Quarantine {
  return {
    async rows(entries) {
      if (!entries.length) return;
      const now = new Date().toISOString();
      await producer.send({
        topic: deadLetterTopic,
        messages: entries.map(({ message, error, provenance }) => ({
          key: `${provenance._topic}/${provenance._partition}/${provenance._offset}`,
          value: message.value,
          headers: { error: error.slice(0, 1000), source },
        })),
      });
      await writer.write(
        entries.map(({ message, error, provenance }) => ({
          quarantined_at: now,
          source,
          error: error.slice(0, 2000),
          payload: message.value?.toString('utf8') ?? '',
          ...provenance,
        })),
      );
    },
  };
}

export const quarantineColumns = [
  'quarantined_at',
  'source',
  'error',
  'payload',
  '_topic',
  '_partition',
  '_offset',
];
