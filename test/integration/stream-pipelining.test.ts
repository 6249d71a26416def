// A pipelined offset consumer (pipeline.depth 2, as the listings and views sinks run) returns a batch
// to kafkajs before its rows are stored. Two things could then store a position twice or never, and
// each test here makes one happen against the real Kafka, ClickHouse and Redis (a table, topic and
// Redis prefix of its own):
// - the member rejoins the group while its insert is still on its way (a proxy holds it), and the
//   partition's next owner reads which positions are stored before that insert lands: it must wait
//   for the batch marked in flight (stream/inflight-marks.ts);
// - a batch fails after the next one was handed over (and stored): the partition must be read again
//   from the failed batch, and nothing committed past it before.
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { streamBatchStore } from '../../common/metrics/registry.ts';
import { inflightMarks } from '../../stream/inflight-marks.ts';
import type { BatchHandler, RunningConsumer } from '../../stream/offset-consumer.ts';
import type { ClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { env, eventually, testClickHouse, testRedis } from '../support/api.ts';
import {
  assignedEventually,
  clickhouseProxy,
  hexSuffix,
  messageConsumer,
  messageHandler,
  messageTable,
  sleep,
  type MessageRow,
} from '../support/consumer-fixtures.ts';

const suffix = hexSuffix();
const messages = messageTable(`pipelining_${suffix}`);
const logger = createLogger('error');
const kafka = createKafka(env.KAFKA_BROKERS, 'pipelining-tests', logger);

let admin: Admin;
let producer: Producer;
const topics: string[] = [];

async function newTopic(name: string, partitions: number): Promise<string> {
  const topic = `test.pipelining.${name}.${suffix}`;
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: partitions }] });
  topics.push(topic);
  return topic;
}

async function member(
  topic: string,
  groupId: string,
  writer: ClickHouseWriter<MessageRow>,
  handler?: BatchHandler,
): Promise<RunningConsumer> {
  const marks = inflightMarks(await testRedis(), `test:pipelining:${suffix}:`, groupId, topic);
  const pipeline = { depth: 2, marks };
  return messageConsumer({
    kafka,
    topic,
    groupId,
    table: messages.table,
    writer,
    logger,
    handler,
    fetchWaitMs: 100,
    pipeline,
  });
}

async function produce(topic: string, count: number, label: string, partitions: number) {
  await producer.send({
    topic,
    messages: Array.from({ length: count }, (_, i) => ({
      partition: i % partitions,
      value: `${label}-${i}`,
    })),
  });
}

async function committed(groupId: string, topic: string): Promise<number> {
  const [offsets] = await admin.fetchOffsets({ groupId, topics: [topic] });
  return offsets!.partitions.reduce((sum, p) => sum + Math.max(0, Number(p.offset)), 0);
}

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  producer = await createProducer(kafka, { idempotent: false });
  await messages.create();
});

afterAll(async () => {
  await producer.disconnect();
  await admin.deleteTopics({ topics }).catch(() => undefined);
  await admin.disconnect();
  await messages.drop();
});

describe('a pipelined consumer', () => {
  it('security: the next owner of a partition waits for the insert its previous owner still has on its way; each position once', async () => {
    const topic = await newTopic('rejoin', 2);
    const groupId = `test.pipelining.rejoin.${suffix}`;
    const proxy = await clickhouseProxy();
    const a = await member(topic, groupId, messages.writer(proxy.url, logger));
    let b: RunningConsumer | undefined;
    try {
      await assignedEventually(a, 2, 'A');
      proxy.hold(6_000); // A's insert reaches ClickHouse 6 s after A sent it
      await produce(topic, 20, 'held', 2);
      await eventually(async () => (proxy.held() > 0 ? true : undefined), 10_000, "A's insert on its way");
      // A handed its batches over and went on fetching: it rejoins at once when B joins.
      b = await member(topic, groupId, messages.writer(env.CLICKHOUSE_URL, logger));
      await assignedEventually(b, 1, 'B');
      expect((await messages.stored()).positions).toBe(0); // A's insert is still held
      await eventually(
        async () => ((await messages.stored()).positions === 20 ? true : undefined),
        30_000,
        'every position',
      );
      await sleep(3_000); // a second copy from B would land by now
      expect(await messages.stored()).toEqual({ rows: 20, positions: 20 });
      await eventually(
        async () => ((await committed(groupId, topic)) === 20 ? true : undefined),
        30_000,
        'both partitions committed',
      );
    } finally {
      proxy.hold(0);
      await Promise.all([a.stop(), b?.stop()]);
      await proxy.close();
    }
  }, 120_000);

  it('fault: a batch that fails after the next one was handed over is read again from its first offset; each position once', async () => {
    const topic = await newTopic('failure', 1);
    const groupId = `test.pipelining.failure.${suffix}`;
    const writer = messages.writer(env.CLICKHOUSE_URL, logger);
    const storeRows = messageHandler(writer);
    let failures = 0;
    const reads = new Map<string, number>();
    const handler: BatchHandler = {
      async handle(batch, context) {
        for (const m of batch) reads.set(m.value!.toString(), (reads.get(m.value!.toString()) ?? 0) + 1);
        if (failures === 0 && batch.some((m) => m.value?.toString() === 'first-0')) {
          failures++;
          await sleep(1_500); // meanwhile the next batch is fetched, handed over and stored
          throw new Error('a step of the handler failed');
        }
        await storeRows.handle(batch, context);
      },
    };
    const consumer = await member(topic, groupId, writer, handler);
    const before = (await messages.stored()).rows;
    try {
      await assignedEventually(consumer, 1, 'the member');
      await produce(topic, 10, 'first', 1);
      await eventually(async () => (reads.get('first-0') ? true : undefined), 10_000, 'the first batch read');
      await produce(topic, 10, 'second', 1);
      await eventually(
        async () => ((await messages.stored()).rows - before === 20 ? true : undefined),
        30_000,
        'every position',
      );
      expect(failures).toBe(1);
      expect(reads.get('first-0')).toBe(2); // read again from the failed batch's first offset
      await eventually(
        async () => ((await committed(groupId, topic)) === 20 ? true : undefined),
        30_000,
        'the partition committed',
      );
    } finally {
      await consumer.stop();
    }
    const result = await testClickHouse().query({
      query: `SELECT count() AS rows, uniqExact(_offset) AS positions FROM ${messages.table.name} WHERE _topic = {topic:String}`,
      query_params: { topic },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ rows: string | number; positions: string | number }>();
    expect({ rows: Number(row!.rows), positions: Number(row!.positions) }).toEqual({
      rows: 20,
      positions: 20,
    });
    // The metrics count the failed batch, and the one handed over after it, as read again.
    const { values } = await streamBatchStore.get();
    const settled = (outcome: string) =>
      values.find(
        (v) =>
          v.metricName === 'stream_batch_store_seconds_count' &&
          v.labels.topic === topic &&
          v.labels.outcome === outcome,
      )?.value;
    expect(settled('read_again')).toBeGreaterThanOrEqual(2);
    expect(settled('committed')).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
