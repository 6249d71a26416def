// A member stuck in a ClickHouse outage must not store a batch whose partitions moved on.
// Member A's writer reaches ClickHouse through a TCP proxy the test closes (an outage that
// only A sees: connections refused); member B, started meanwhile, triggers a rebalance and reaches
// ClickHouse directly. Before the fix, A kept retrying its insert while B took its partitions
// (after the rebalance timeout), stored and committed the same positions, and A's insert landed
// once the proxy reopened: every row of those partitions twice (the insert tokens differ, as B's
// batches hold more messages). Now A's heartbeat reports the rebalance, the rows A had not sent are
// dropped, A neither inserts nor commits them, and each position is stored once. Real Kafka and
// ClickHouse; a table and topic of its own.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Admin, KafkaMessage, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { createKafka, createProducer } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import {
  startOffsetConsumer,
  type BatchHandler,
  type RunningConsumer,
} from '../../stream/offset-consumer.ts';
import { defineTable, type Provenance } from '../../common/warehouse/table.ts';
import { createClickHouseWriter, type ClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { env, eventually, testClickHouse } from '../support/api.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = createLogger('error');
const kafka = createKafka(env.KAFKA_BROKERS, 'fencing-tests', logger);
const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
type FencingRow = Provenance & { v: string };
// A table of this test (its name is hex, never input), created below.
const fencingTable = defineTable<FencingRow>()(`test_fencing_${suffix}`, [
  '_topic',
  '_partition',
  '_offset',
  '_item',
  'v',
]);
const table = fencingTable.name;
const topic = `test.fencing.${suffix}`;
// Short group timings so the test takes seconds, not minutes (production: 30 s, 60 s, 3 s).
const timing = { sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, heartbeatIntervalMs: 1_000 };

/** A TCP proxy to ClickHouse that can refuse connections (close its listener and every socket). */
async function clickhouseProxy() {
  const upstream = new URL(env.CLICKHOUSE_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const remote = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, remote]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(remote).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    async refuse() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async allow() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function member(writer: ClickHouseWriter<FencingRow>, groupId: string): Promise<RunningConsumer> {
  const handler: BatchHandler = {
    async handle(messages: KafkaMessage[], context) {
      const rows = messages
        .filter((m) => !context.isStored(m))
        .map((m) => ({ ...context.provenance(m), v: m.value?.toString() ?? '' }));
      await writer.write(rows);
    },
  };
  return startOffsetConsumer({
    kafka,
    clickhouse: testClickHouse(), // the replay guard reads directly
    groupId,
    topic,
    provenanceTables: [fencingTable],
    handler,
    writers: [writer],
    logger,
    partitionsConsumedConcurrently: 2,
    timing,
  });
}

const writerFor = (url: string) =>
  createClickHouseWriter(
    createClickHouse({
      url,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      database: env.CLICKHOUSE_DATABASE,
    }),
    { table: fencingTable, maxRows: 10_000, maxDelayMs: 100, logger },
  );

async function stored(): Promise<{ rows: number; positions: number }> {
  const result = await testClickHouse().query({
    query: `SELECT count() AS rows, uniqExact(_partition, _offset, _item) AS positions FROM ${table}`,
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ rows: string; positions: string }>();
  return { rows: Number(row!.rows), positions: Number(row!.positions) };
}

let admin: Admin;
let producer: Producer;

beforeAll(async () => {
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2 }] });
  producer = await createProducer(kafka, { idempotent: false });
  // Like the stream's tables: provenance columns and a deduplication window (migration 0040).
  await testClickHouse().command({
    query: `CREATE TABLE ${table} (_topic String, _partition UInt32, _offset UInt64, _item UInt32, v String)
            ENGINE = MergeTree ORDER BY (_topic, _partition, _offset, _item)
            SETTINGS non_replicated_deduplication_window = 1000`,
  });
});

afterAll(async () => {
  await producer.disconnect();
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
  await admin.disconnect();
  await testClickHouse().command({ query: `DROP TABLE IF EXISTS ${table}` });
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
      await eventually(
        async () => (a.assigned().length === 2 ? true : undefined),
        30_000,
        'A owning both partitions',
      );
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
