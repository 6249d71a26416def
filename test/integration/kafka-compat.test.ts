// Proves that KafkaJS 2.2.4 works against the broker version we run (docs/stack.md, "Stack versions"):
// topic creation, produce (plain and gzip), group consumption with manual commits, and a rebalance.
import { randomUUID } from 'node:crypto';
import { CompressionTypes, Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { env, eventually } from '../support/api.ts';

const kafka = new Kafka({ clientId: 'compat-test', brokers: env.KAFKA_BROKERS, logLevel: logLevel.NOTHING });
const topic = `compat-${randomUUID()}`;
const groupId = `compat-group-${randomUUID()}`;
const consumers: Consumer[] = [];

afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect()));
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
});

describe('KafkaJS 2.2.4 against the local broker (happy path)', () => {
  it('creates a topic, produces, consumes in a group, commits, and rebalances', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [{ topic, numPartitions: 3, replicationFactor: 1 }],
      waitForLeaders: true,
    });
    const cluster = await admin.describeCluster();
    expect(cluster.brokers).toHaveLength(1);

    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const messages = Array.from({ length: 60 }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    await producer.send({ topic, messages: messages.slice(0, 30) });
    await producer.send({ topic, compression: CompressionTypes.GZIP, messages: messages.slice(30) });
    await producer.disconnect();

    const seen = new Set<string>();
    const first = kafka.consumer({ groupId });
    consumers.push(first);
    await first.connect();
    await first.subscribe({ topic, fromBeginning: true });
    await first.run({
      autoCommit: false,
      eachBatch: async ({ batch, resolveOffset, commitOffsetsIfNecessary }) => {
        for (const message of batch.messages) {
          seen.add(message.value!.toString());
          resolveOffset(message.offset);
        }
        await first.commitOffsets([
          { topic, partition: batch.partition, offset: String(Number(batch.lastOffset()) + 1) },
        ]);
        await commitOffsetsIfNecessary();
      },
    });
    await eventually(async () => (seen.size === 60 ? true : undefined), 30_000, 'all 60 messages');

    const committed = await eventually(async () => {
      const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
      const total = offsets[0]!.partitions.reduce((sum, p) => sum + Number(p.offset), 0);
      return total === 60 ? total : undefined;
    });
    expect(committed).toBe(60);

    // A second member joins: the group rebalances and splits the three partitions.
    const second = kafka.consumer({ groupId });
    consumers.push(second);
    await second.connect();
    await second.subscribe({ topic, fromBeginning: true });
    await second.run({ autoCommit: false, eachMessage: async () => undefined });
    const members = await eventually(
      async () => {
        const description = await admin.describeGroups([groupId]);
        const group = description.groups[0]!;
        return group.state === 'Stable' && group.members.length === 2 ? group.members.length : undefined;
      },
      30_000,
      'a stable group of two',
    );
    expect(members).toBe(2);
    await admin.disconnect();
  });
});
