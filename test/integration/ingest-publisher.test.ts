// The ingest API's coalescing publisher against the real broker: sends were
// coalesced by message count only, so requests that arrived together could make one produce
// request larger than the broker accepts (max.message.bytes, ~1 MiB by default), and that one
// failure failed every request in it. Each test uses its own one-partition topic, so every message
// lands in the same record batch, as the worst case of the six-partition topics.
import { randomUUID } from 'node:crypto';
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { coalescingPublisher } from '../../ingest/publisher.ts';
import { env } from '../support/api.ts';

const kafka = createKafka(env.KAFKA_BROKERS, 'publisher-tests', createLogger('error'));
let admin: Admin;
let producer: Producer;
const topics: string[] = [];

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  producer = await createProducer(kafka, { idempotent: false });
});
afterAll(async () => {
  await producer.disconnect();
  if (topics.length) await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
});

async function freshTopic(): Promise<string> {
  const topic = `test.publisher.${randomUUID().slice(0, 8)}`;
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  topics.push(topic);
  return topic;
}

const message = (bytes: number) => ({ key: randomUUID(), value: 'x'.repeat(bytes) });

describe('coalescing publisher', () => {
  it('happy: requests that arrive together and exceed the broker limit together are all published', async () => {
    const topic = await freshTopic();
    const publisher = coalescingPublisher(producer);
    const first = publisher.publish(topic, [message(10)]); // in flight: the next ones queue up
    // Six 300 KB requests (1.8 MB together, the broker takes ~1 MiB per batch) arrive meanwhile.
    const queued = Array.from({ length: 6 }, () => publisher.publish(topic, [message(300_000)]));
    const results = await Promise.allSettled([first, ...queued]);
    expect(results.map((r) => r.status)).toEqual(Array(7).fill('fulfilled'));
    const [offsets] = await admin.fetchTopicOffsets(topic);
    expect(Number(offsets!.high)).toBe(7);
  });

  it('error: a message larger than the broker accepts fails its own request only', async () => {
    const topic = await freshTopic();
    const publisher = coalescingPublisher(producer);
    const first = publisher.publish(topic, [message(10)]);
    const small = Array.from({ length: 5 }, () => publisher.publish(topic, [message(1_000)]));
    const oversized = publisher.publish(topic, [message(1_200_000)]);
    const more = Array.from({ length: 5 }, () => publisher.publish(topic, [message(1_000)]));
    const [oversizedResult, ...others] = await Promise.allSettled([oversized, first, ...small, ...more]);
    expect(oversizedResult!.status).toBe('rejected');
    expect(others.map((r) => r.status)).toEqual(Array(11).fill('fulfilled'));
  });
});
