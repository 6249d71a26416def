// Poison messages: copied to the dead-letter topic (original bytes, error in the headers) and stored
// in the quarantine table with the error, without blocking their partition. Quarantine rows carry
// provenance like base rows, so a replayed poison message is recognised as handled.
import type { Producer } from 'kafkajs';
import { quarantinedMessages } from '../../common/metrics/registry.ts';
import type { Provenance } from '../offset-consumer.ts';
import type { QuarantineRow } from '../../common/warehouse/quarantine.ts';
import type { BatchFence } from './batch-fence.ts';
import type { ClickHouseWriter } from './clickhouse-writer.ts';

export interface QuarantineEntry {
  /** The poison bytes: the whole message, or one item of a v2 message as a standalone message. */
  payload: string | Buffer | null;
  error: string;
  provenance: Provenance;
}

export interface Quarantine {
  /** `fence`: the Kafka batch's the entries come from (its context's), which the write carries. */
  rows(entries: QuarantineEntry[], fence: BatchFence): Promise<void>;
}

export function createQuarantine(
  writer: ClickHouseWriter<QuarantineRow>,
  producer: Producer,
  deadLetterTopic: string,
  source: string,
): Quarantine {
  return {
    async rows(entries, fence) {
      if (!entries.length) return;
      const now = new Date().toISOString();
      await producer.send({
        topic: deadLetterTopic,
        messages: entries.map(({ payload, error, provenance }) => ({
          key: `${provenance._topic}/${provenance._partition}/${provenance._offset}`,
          value: payload,
          headers: { error: error.slice(0, 1000), source, item: String(provenance._item) },
        })),
      });
      const result = await writer.write(
        entries.map(({ payload, error, provenance }) => ({
          quarantined_at: now,
          source,
          error: error.slice(0, 2000),
          // Bytes that are not UTF-8 survive as U+FFFD; the dead-letter topic keeps the originals.
          payload: payload?.toString('utf8') ?? '',
          ...provenance,
        })),
        fence,
      );
      // The quarantine table takes any string; a refusal here means the server itself is broken.
      if (result.rejected.length) throw new Error(`quarantine refused: ${result.rejected[0]!.error}`);
      quarantinedMessages.inc({ source }, entries.length);
    },
  };
}
