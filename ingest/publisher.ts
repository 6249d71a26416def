// Publishes the messages of concurrent requests together: while one produce request is in flight,
// the messages of the requests that arrive meanwhile are queued and go out in the next single
// sendBatch. No added delay when idle; under load, fewer and larger produce requests (kafkajs costs
// per message and per request — docs/ingest.md, "Performance"). Each caller's promise
// settles with the send that carried its messages, so a failure still fails exactly its requests.
import type { Message, Producer } from 'kafkajs';

interface Pending {
  topic: string;
  messages: Message[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Upper bound of messages in one produce request (keeps requests well under the broker's limit). */
export const MAX_MESSAGES_PER_SEND = 2_000;

/**
 * `maxInFlight` produce requests may be under way at once (while one waits for the broker, the
 * next is encoded); 1 for an idempotent producer, which allows no more.
 */
export function coalescingPublisher(producer: Producer, { maxInFlight = 1 } = {}) {
  let queue: Pending[] = [];
  let sending = 0;

  async function drain(): Promise<void> {
    sending++;
    while (queue.length) {
      const batch: Pending[] = [];
      let count = 0;
      while (
        queue.length &&
        (batch.length === 0 || count + queue[0]!.messages.length <= MAX_MESSAGES_PER_SEND)
      ) {
        const next = queue.shift()!;
        batch.push(next);
        count += next.messages.length;
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
        queue.push({ topic, messages, resolve, reject });
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
