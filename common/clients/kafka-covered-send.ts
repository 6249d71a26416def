// A send is acknowledged only when its result names every partition it wrote to. kafkajs 2.2.4 can
// resolve a send over several partitions without a result for one of them: when a partition's
// leader moves to a broker that already answered for another partition of the same send, its retry
// skips that broker, so the partition's messages are never written (or written only if a follower
// had them before the old leader died). Such a send is completed here by sending the missing
// partitions' messages again, to the same partitions, until the result covers them.
//
// Why a re-send is harmless: listing messages carry deterministic ids that the stream stores once;
// on an idempotent producer the failed request's sequence numbers were given back, so the re-sent
// messages (the same ones, in the same order, on the same partition) carry the same sequence and the
// broker drops them if a follower already had them.
import type { Message, Partitioners, Producer, ProducerBatch, RecordMetadata, TopicMessages } from 'kafkajs';
import { kafkaPartitionResends } from '../metrics/registry.ts';
import { inOrder } from '../in-order.ts';

type PartitionerFactory = typeof Partitioners.DefaultPartitioner;

/** How often the missing partitions of one send are sent again before the send fails. */
export const MAX_PARTITION_RESENDS = 5;

/** The partition each message went to, as chosen by the producer's own partitioner. */
const partitionOf = new WeakMap<Message, number>();

/** Wraps a partitioner so the partition it picks for each message can be read after the send. */
export function recordingPartitioner(inner: PartitionerFactory): PartitionerFactory {
  return () => {
    const pick = inner();
    return (args) => {
      const partition = pick(args);
      partitionOf.set(args.message, partition);
      return partition;
    };
  };
}

export class PartitionsNotAcknowledgedError extends Error {
  constructor(readonly missing: string[]) {
    super(`Kafka acknowledged no write for ${missing.join(', ')} after ${MAX_PARTITION_RESENDS} re-sends`);
    this.name = 'PartitionsNotAcknowledgedError';
  }
}

const partitionKey = (topic: string, partition: number) => `${topic}[${partition}]`;

/** The messages of `sent` whose partition has no entry in `result`, by topic. */
export function uncovered(sent: TopicMessages[], result: RecordMetadata[]): TopicMessages[] {
  const acknowledged = new Set(result.map((r) => partitionKey(r.topicName, r.partition)));
  const missing: TopicMessages[] = [];
  for (const { topic, messages } of sent) {
    const left = messages.filter((message) => {
      const partition = message.partition ?? partitionOf.get(message);
      // A message the partitioner never saw was not sent at all: it is missing too.
      return partition === undefined || !acknowledged.has(partitionKey(topic, partition));
    });
    if (left.length) missing.push({ topic, messages: left });
  }
  return missing;
}

/**
 * `sendBatch` that resolves only when every partition written to is acknowledged. Re-sends pin each
 * message to the partition it was first given (a changed partition count must not move it).
 */
export async function sendCovered(
  producer: Pick<Producer, 'sendBatch'>,
  batch: ProducerBatch,
  onResend?: (missing: TopicMessages[]) => void,
): Promise<RecordMetadata[]> {
  const results = await producer.sendBatch(batch);
  if (batch.acks === 0) return results; // nothing is acknowledged, nothing can be checked
  let missing = uncovered(batch.topicMessages ?? [], results);
  for (let attempt = 0; missing.length && attempt < MAX_PARTITION_RESENDS; attempt++) {
    onResend?.(missing);
    for (const { topic, messages } of missing) kafkaPartitionResends.inc({ topic }, messages.length);
    const pinned = missing.map(({ topic, messages }) => ({
      topic,
      messages: messages.map((m) => {
        const copy = { ...m, partition: m.partition ?? partitionOf.get(m) };
        if (copy.partition !== undefined) partitionOf.set(copy, copy.partition);
        return copy;
      }),
    }));
    const more = await producer.sendBatch({ ...batch, topicMessages: pinned });
    results.push(...more);
    missing = uncovered(pinned, more);
  }
  if (missing.length) {
    throw new PartitionsNotAcknowledgedError(
      missing.flatMap(({ topic, messages }) => [
        ...new Set(messages.map((m) => partitionKey(topic, m.partition ?? partitionOf.get(m) ?? -1))),
      ]),
    );
  }
  return results;
}

/**
 * A producer whose `send` and `sendBatch` are completed by sendCovered.
 *
 * An idempotent producer is replaced after a failed send. kafkajs gives back the sequence numbers
 * of a request that failed, but a request that failed may still have been written (the leader died
 * after a follower copied it); the next, different messages for that partition would then carry
 * the same sequence numbers and the broker would drop them as duplicates of the earlier ones while
 * acknowledging them. A new producer gets a new producer id, whose sequences nothing can match.
 *
 * The sends of an idempotent producer also go one at a time: a send started while another is in
 * flight would be given the sequence numbers that the failing one hands back, before the failure
 * is seen and the producer replaced (measured on 3 brokers with concurrent senders: 7 of 2,910
 * acknowledged messages dropped as duplicates). The ingest API already sends one request at a time
 * per producer (coalescing publisher), so this costs it nothing.
 */
export async function coveredProducer(
  create: () => Producer,
  { idempotent, onResend }: { idempotent: boolean; onResend?: (missing: TopicMessages[]) => void },
): Promise<Producer> {
  interface Current {
    producer: Producer;
    ready: Promise<void>;
  }
  const first = create();
  await first.connect();
  let current: Current = { producer: first, ready: Promise.resolve() };
  const inFlight = new Map<Producer, number>();
  const retiring = new Set<Producer>();
  const disconnect = (producer: Producer) => producer.disconnect().catch(() => undefined);

  function renew(failed: Current): void {
    if (current !== failed) return; // another send has renewed it already
    const producer = create();
    current = { producer, ready: producer.connect() };
    current.ready.catch(() => undefined); // the sends that wait for it see the failure
    if (inFlight.get(failed.producer)) retiring.add(failed.producer);
    else void disconnect(failed.producer);
  }

  /** The sends of an idempotent producer go one at a time (see above). */
  const oneAtATime = inOrder();

  function sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return idempotent ? oneAtATime(() => sendNow(batch)) : sendNow(batch);
  }

  async function sendNow(batch: ProducerBatch): Promise<RecordMetadata[]> {
    const used = current;
    try {
      await used.ready;
    } catch (error) {
      renew(used);
      throw error;
    }
    inFlight.set(used.producer, (inFlight.get(used.producer) ?? 0) + 1);
    try {
      return await sendCovered(used.producer, batch, onResend);
    } catch (error) {
      if (idempotent) renew(used);
      throw error;
    } finally {
      const left = inFlight.get(used.producer)! - 1;
      if (left) inFlight.set(used.producer, left);
      else {
        inFlight.delete(used.producer);
        if (retiring.delete(used.producer)) void disconnect(used.producer);
      }
    }
  }

  return {
    ...first,
    sendBatch,
    send: ({ topic, messages, ...rest }) => sendBatch({ ...rest, topicMessages: [{ topic, messages }] }),
    async disconnect() {
      const all = [current.producer, ...retiring];
      retiring.clear();
      await Promise.all(all.map((p) => p.disconnect()));
    },
  };
}
