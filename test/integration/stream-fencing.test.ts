// A member stuck in a ClickHouse outage must not store a batch whose partitions moved on.
// Member A's writer reaches ClickHouse through a TCP proxy the test closes (an outage that
// only A sees: connections refused); member B, started meanwhile, triggers a rebalance and reaches
// ClickHouse directly. Before the fix, A kept retrying its insert while B took its partitions
// (after the rebalance timeout), stored and committed the same positions, and A's insert landed
// once the proxy reopened: every row of those partitions twice (the insert tokens differ, as B's
// batches hold more messages). Now A's heartbeat reports the rebalance, the rows A had not sent are
// dropped, A neither inserts nor commits them, and each position is stored once. Real Kafka and
// ClickHouse; a table and topic of its own.
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import type { RunningConsumer } from '../../stream/offset-consumer.ts';
import type { ClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { env, eventually } from '../support/api.ts';
import {
  assignedEventually,
  clickhouseProxy,
  hexSuffix,
  messageConsumer,
  messageTable,
  sleep,
  type MessageRow,
} from '../support/consumer-fixtures.ts';

const suffix = hexSuffix();
// A table of this test, created below.
const fencing = messageTable(`fencing_${suffix}`);
const topic = `test.fencing.${suffix}`;
const logger = createLogger('error');
const kafka = createKafka(env.KAFKA_BROKERS, 'fencing-tests', logger);

const member = (writer: ClickHouseWriter<MessageRow>, groupId: string): Promise<RunningConsumer> =>
  messageConsumer({ kafka, topic, groupId, table: fencing.table, writer, logger });

const writerFor = (url: string) => fencing.writer(url, logger);
const stored = fencing.stored;

let admin: Admin;
let producer: Producer;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2 }] });
  producer = await createProducer(kafka, { idempotent: false });
  await fencing.create();
});

afterAll(async () => {
  await producer.disconnect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  await fencing.drop();
});

async function produce(count: number, label: string) {
  await producer.send({
    topic,
    messages: Array.from({ length: count }, (_, i) => ({ partition: i % 2, value: `${label}-${i}` })),
  });
}

describe('stream fencing', () => {
  it('security: a member whose partitions were revoked during a ClickHouse outage does not store or commit them', async () => {
    const proxy = await clickhouseProxy();
    const groupId = `test.fencing.${suffix}`;
    const writerA = writerFor(proxy.url);
    const writerB = writerFor(env.CLICKHOUSE_URL);
    const a = await member(writerA, groupId);
    let b: RunningConsumer | undefined;
    try {
      await assignedEventually(a, 2, 'A');
      await proxy.refuse(); // ClickHouse is down, for A only
      await produce(20, 'first');
      await eventually(
        async () => (writerA.stats.retries > 0 ? true : undefined),
        20_000,
        "A's insert failing",
      );
      b = await member(writerB, groupId); // a rebalance while A's batch waits for ClickHouse
      await eventually(
        async () => (b!.assigned().length > 0 ? true : undefined),
        60_000,
        'B owning partitions',
      );
      await produce(20, 'second'); // B's batches are not A's: different insert tokens
      const bPartitions = b.assigned();
      await eventually(
        async () => ((await stored()).positions >= 20 * bPartitions.length ? true : undefined),
        30_000,
        "B's partitions stored",
      );
      await proxy.allow(); // ClickHouse is back for A
      await eventually(
        async () => ((await stored()).positions === 40 ? true : undefined),
        60_000,
        'every position',
      );
      await sleep(8_000); // A's writer retries every ≤ 5 s: anything it still holds would land now
      expect(await stored()).toEqual({ rows: 40, positions: 40 });
      expect(writerA.stats.dropped).toBeGreaterThan(0); // A's first-batch rows were taken out, unsent
    } finally {
      await proxy.allow().catch(() => undefined);
      await Promise.all([a.stop(), b?.stop()]);
      await proxy.close();
    }
  }, 180_000);
});
