// A send over several partitions must not resolve without every partition written. kafkajs alone
// (raw producer) can resolve a send while the leader of one of its partitions is SIGKILLed without a
// result for that partition; the project's producer (createProducer: sendCovered) re-sends those
// messages, and everything it acknowledged is in the topic.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Partitioners, type Message, type Producer } from 'kafkajs';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { recordingPartitioner, uncovered } from '../../common/clients/kafka-covered-send.ts';
import { createLogger } from '../../common/logger.ts';
import { expectClusterStack, killNode, restartMissing, waitForFullIsr } from '../support/cluster.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const brokers = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
const kafka = createKafka(brokers, 'cluster-coverage-tests', createLogger('error'));
const PARTITIONS = 3;
const MESSAGES_PER_SEND = 10;
const SENDERS = 3;
/** Kill rounds at most (in trials here, kafkajs alone lost messages within 3). */
const MAX_ROUNDS = 4;

interface Tally {
  sends: number;
  failedSends: number;
  /** Sends that resolved without a result for a partition they wrote to. */
  uncoveredSends: number;
  uncoveredMessages: number;
  resentMessages: number;
  acknowledged: Set<string>;
}
const tally = (): Tally => ({
  sends: 0,
  failedSends: 0,
  uncoveredSends: 0,
  uncoveredMessages: 0,
  resentMessages: 0,
  acknowledged: new Set(),
});

async function sendLoop(producer: Producer, name: string, t: Tally, until: () => boolean): Promise<void> {
  while (!until()) {
    const messages: Message[] = Array.from({ length: MESSAGES_PER_SEND }, () => ({
      key: randomUUID(),
      value: `${name}:${randomUUID()}`,
    }));
    t.sends++;
    try {
      const result = await producer.sendBatch({ topicMessages: [{ topic, messages }] });
      const missing = new Set(uncovered([{ topic, messages }], result).flatMap((m) => m.messages));
      if (missing.size) {
        t.uncoveredSends++;
        t.uncoveredMessages += missing.size;
      }
      for (const m of messages) if (!missing.has(m)) t.acknowledged.add(String(m.value));
    } catch {
      t.failedSends++; // a failed send acknowledged nothing: its caller knows to retry
    }
  }
}

async function leaderOf(partition: number): Promise<number> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
    return topics[0]!.partitions.find((p) => p.partitionId === partition)!.leader;
  } finally {
    await admin.disconnect();
  }
}

/** Every value in the topic, with how often it occurs. */
async function readTopic(): Promise<Map<string, number>> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const total = ends.reduce((n, p) => n + Number(p.high) - Number(p.low), 0);
  const seen = new Map<string, number>();
  let read = 0;
  const consumer = kafka.consumer({ groupId: `coverage-read-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        const value = String(message.value);
        seen.set(value, (seen.get(value) ?? 0) + 1);
        if (++read >= total) resolve();
      },
    });
  });
  await consumer.disconnect();
  return seen;
}

const topic = `rls-cluster-coverage-${randomUUID().slice(0, 8)}`;

describe('sends across partitions while a partition leader is SIGKILLed (3 brokers)', () => {
  it('kafkajs alone resolves sends without a partition; the covered producer re-sends and loses nothing', async () => {
    expectClusterStack();
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: PARTITIONS,
          replicationFactor: 3,
          configEntries: [{ name: 'min.insync.replicas', value: '2' }],
        },
      ],
    });
    await admin.disconnect();

    const raw = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: recordingPartitioner(Partitioners.DefaultPartitioner),
    });
    await raw.connect();
    const covered = await createProducer(kafka); // idempotent, as for view events and status changes
    const rawTally = tally();
    const coveredTally = tally();
    const resendCounter = (await import('../../common/metrics/registry.ts')).kafkaPartitionResends;
    const resentBefore = (await resendCounter.get()).values.find((v) => v.labels.topic === topic)?.value ?? 0;

    let stored = new Map<string, number>();
    const lost = (t: Tally) => [...t.acknowledged].filter((v) => !stored.has(v)).length;
    const doubled = (t: Tally) => [...t.acknowledged].filter((v) => (stored.get(v) ?? 0) > 1).length;
    // kafkajs alone fails in two ways, both by chance: a send resolves without a partition, or a
    // send after a failed one is acknowledged but dropped as a duplicate. Rounds until one shows.
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      let stopAt = Infinity;
      const until = () => Date.now() > stopAt;
      const loops = [
        ...Array.from({ length: SENDERS }, () => sendLoop(raw, 'raw', rawTally, until)),
        ...Array.from({ length: SENDERS }, () => sendLoop(covered, 'covered', coveredTally, until)),
      ];
      await sleep(3_000);
      const leader = await leaderOf(0);
      await killNode('kafka', leader);
      console.log(`round ${round}: SIGKILLed broker ${leader}, leader of partition 0`);
      stopAt = Date.now() + 15_000;
      await Promise.all(loops);
      await restartMissing('kafka');
      // The restarted broker catches up before the next round (or test) kills another node.
      await waitForFullIsr();
      stored = await readTopic();
      if (rawTally.uncoveredSends > 0 || lost(rawTally) > 0) break;
    }
    await raw.disconnect();
    await covered.disconnect();
    coveredTally.resentMessages =
      ((await resendCounter.get()).values.find((v) => v.labels.topic === topic)?.value ?? 0) - resentBefore;

    const rawUncoveredLost = rawTally.uncoveredMessages; // never acknowledged by a result
    const rawAllValues = [...stored.keys()].filter((v) => v.startsWith('raw:')).length;
    for (const [name, t] of [
      ['raw kafkajs', rawTally],
      ['covered', coveredTally],
    ] as const) {
      console.log(
        `${name}: ${t.sends} sends (${t.failedSends} failed), ${t.uncoveredSends} resolved without a partition ` +
          `(${t.uncoveredMessages} messages), ${t.resentMessages} messages re-sent, ` +
          `${t.acknowledged.size} acknowledged, ${lost(t)} lost, ${doubled(t)} stored twice`,
      );
    }
    console.log(
      `raw: ${rawAllValues} raw messages in the topic, ${rawUncoveredLost} were in unacknowledged partitions`,
    );

    // Without the fix, acknowledged messages are lost (or would be: a send resolved without one of
    // its partitions).
    expect(rawTally.uncoveredSends + lost(rawTally)).toBeGreaterThan(0);
    // With it, no send resolves like that, and every acknowledged message is stored, once.
    expect(coveredTally.uncoveredSends).toBe(0);
    expect(lost(coveredTally)).toBe(0);
    expect(doubled(coveredTally)).toBe(0);
    expect(coveredTally.acknowledged.size).toBeGreaterThan(0);
  });
});
