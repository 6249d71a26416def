// Publishes the messages of concurrent requests together: while one produce request is in flight,
// the messages of the requests that arrive meanwhile are queued and go out in the next single
// sendBatch. No added delay when idle; under load, fewer and larger produce requests (kafkajs costs
// per message and per request — docs/ingest.md, "Performance"). Each caller's promise
// settles with the send that carried its messages, so a failure still fails exactly its requests.
//
// A send is bounded by bytes as well as by messages: the broker refuses a record
// batch above its max.message.bytes (~1 MiB by default) as a whole, and every request of a send
// fails with it, so requests that were fine alone failed together. A request whose messages alone
// exceed the bound still goes out, alone: if the broker refuses it, only that request fails.
import type { Message, Producer } from 'kafkajs';

interface Pending {
  topic: string;
  messages: Message[];
  bytes: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Upper bound of messages in one produce request (keeps requests well under the broker's limit). */
export const MAX_MESSAGES_PER_SEND = 2_000;
/**
 * Upper bound of a send's size as measured by messageBytes(): under Kafka's default
 * max.message.bytes (1,048,588) even when every message lands in one partition's record batch.
 */
export const MAX_BYTES_PER_SEND = 900_000;
/** Record framing (length, attributes, deltas, header counts), generously. */
const RECORD_OVERHEAD_BYTES = 64;

/** What a message adds to a record batch, a little more than it really does. */
export function messageBytes(message: Message): number {
  const size = (value: unknown) =>
    value === null || value === undefined
      ? 0
      : Buffer.isBuffer(value)
        ? value.length
        : Buffer.byteLength(String(value));
  let headers = 0;
  for (const [name, value] of Object.entries(message.headers ?? {}))
    headers +=
      Buffer.byteLength(name) + (Array.isArray(value) ? value.reduce((n, v) => n + size(v), 0) : size(value));
  return RECORD_OVERHEAD_BYTES + size(message.key) + size(message.value) + headers;
}

export function coalescingPublisher(producer: Producer, { maxInFlight = 1 } = {}) {
  let queue: Pending[] = [];
  let sending = 0;

  async function drain(): Promise<void> {
    sending++;
    while (queue.length) {
      const batch: Pending[] = [];
      let count = 0;
      let bytes = 0;
      // The first request always goes, whatever its size; the others only while both bounds hold.
      while (
        queue.length &&
        (batch.length === 0 ||
          (count + queue[0]!.messages.length <= MAX_MESSAGES_PER_SEND &&
            bytes + queue[0]!.bytes <= MAX_BYTES_PER_SEND))
      ) {
        const next = queue.shift()!;
        batch.push(next);
        count += next.messages.length;
        bytes += next.bytes;
      }
      const byTopic = new Map<string, Message[]>();
      for (const p of batch) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), ...p.messages]);
      try {
        await producer.sendBatch({
          topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
        });
        for (const p of batch) p.resolve();
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
    }
    sending--;
  }

  return {
    publish(topic: string, messages: Message[]): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const bytes = messages.reduce((sum, message) => sum + messageBytes(message), 0);
        queue.push({ topic, messages, bytes, resolve, reject });
        if (sending < maxInFlight) void drain();
      });
    },
    /** Rejects what is still queued (shutdown). */
    abort(error: Error): void {
      const left = queue;
      queue = [];
      for (const p of left) p.reject(error);
    },
  };
}

export type Publisher = ReturnType<typeof coalescingPublisher>;
