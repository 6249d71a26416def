// Fixtures of the offset consumer's fault tests (not a test file): a table of the test's own with
// the stream's provenance columns, a writer and a handler that store one row per message, and a TCP
// proxy to ClickHouse that can refuse connections or hold what a client sends (a slow insert).
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Kafka, KafkaMessage } from 'kafkajs';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import type { Logger } from '../../common/logger.ts';
import { defineTable, type Provenance } from '../../common/warehouse/table.ts';
import {
  startOffsetConsumer,
  type BatchHandler,
  type OffsetConsumerOptions,
  type RunningConsumer,
} from '../../stream/offset-consumer.ts';
import { createClickHouseWriter, type ClickHouseWriter } from '../../stream/sink/clickhouse-writer.ts';
import { env, eventually, testClickHouse } from './api.ts';
export { setTimeout as sleep } from 'node:timers/promises';

export type MessageRow = Provenance & { v: string };

/** Group timings short enough for a test to see a rebalance in seconds (production: 30 s, 60 s, 3 s). */
const shortGroupTiming = {
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 10_000,
  heartbeatIntervalMs: 1_000,
};

/** Hex, for the names of a test's own table, topic and group. */
export const hexSuffix = (): string => randomUUID().replace(/-/g, '').slice(0, 12);

/** A table of one row per stored message; `suffix` is hex (the name is never input). */
export function messageTable(suffix: string) {
  const table = defineTable<MessageRow>()(`test_${suffix}`, [
    '_topic',
    '_partition',
    '_offset',
    '_item',
    'v',
  ]);
  return {
    table,
    /** Like the stream's tables: provenance columns and a deduplication window (migration 0040). */
    create: () =>
      testClickHouse().command({
        query: `CREATE TABLE ${table.name} (_topic String, _partition UInt32, _offset UInt64, _item UInt32, v String)
                ENGINE = MergeTree ORDER BY (_topic, _partition, _offset, _item)
                SETTINGS non_replicated_deduplication_window = 1000`,
      }),
    drop: () => testClickHouse().command({ query: `DROP TABLE IF EXISTS ${table.name}` }),
    /** A writer of the table through `url` (a proxy, or ClickHouse itself). */
    writer: (url: string, logger: Logger) =>
      createClickHouseWriter(
        createClickHouse({
          url,
          username: env.CLICKHOUSE_USER,
          password: env.CLICKHOUSE_PASSWORD,
          database: env.CLICKHOUSE_DATABASE,
        }),
        { table, maxRows: 10_000, maxDelayMs: 100, logger },
      ),
    /** Rows stored, and distinct positions among them (equal unless a position was stored twice). */
    async stored(): Promise<{ rows: number; positions: number }> {
      const result = await testClickHouse().query({
        query: `SELECT count() AS rows, uniqExact(_partition, _offset, _item) AS positions FROM ${table.name}`,
        format: 'JSONEachRow',
      });
      const [row] = await result.json<{ rows: string; positions: string }>();
      return { rows: Number(row!.rows), positions: Number(row!.positions) };
    },
  };
}

/** Stores each message not stored yet as one row (its value in `v`). */
export const messageHandler = (writer: ClickHouseWriter<MessageRow>): BatchHandler => ({
  async handle(messages: KafkaMessage[], context) {
    const rows = messages
      .filter((m) => !context.isStored(m))
      .map((m) => ({ ...context.provenance(m), v: m.value?.toString() ?? '' }));
    await writer.write(rows, context.fence);
  },
});

/**
 * A group member of `topic` storing each message through `writer` (`handler` wraps messageHandler
 * when a test needs it to fail); its replay guard reads ClickHouse directly.
 */
export function messageConsumer(options: {
  kafka: Kafka;
  topic: string;
  groupId: string;
  table: ReturnType<typeof messageTable>['table'];
  writer: ClickHouseWriter<MessageRow>;
  logger: Logger;
  handler?: BatchHandler;
  fetchWaitMs?: number;
  pipeline?: OffsetConsumerOptions['pipeline'];
}): Promise<RunningConsumer> {
  const { writer, table, ...rest } = options;
  return startOffsetConsumer({
    ...rest,
    clickhouse: testClickHouse(),
    provenanceTables: [table],
    handler: options.handler ?? messageHandler(writer),
    writers: [writer],
    partitionsConsumedConcurrently: 2,
    timing: shortGroupTiming,
  });
}

/** Waits until `consumer` holds `count` partitions. */
export async function assignedEventually(
  consumer: RunningConsumer,
  count: number,
  who: string,
): Promise<void> {
  await eventually(
    async () => (consumer.assigned().length >= count ? true : undefined),
    30_000,
    `${who} owning ${count} partition(s)`,
  );
}

/**
 * A TCP proxy to ClickHouse that can refuse connections (close its listener and every socket) or
 * hold, for `holdMs`, each chunk a client sends (an insert that lands that much later).
 */
export async function clickhouseProxy() {
  const upstream = new URL(env.CLICKHOUSE_URL);
  const sockets = new Set<net.Socket>();
  let holdMs = 0;
  let held = 0;
  const server = net.createServer((client) => {
    const remote = net.connect(Number(upstream.port), upstream.hostname);
    for (const s of [client, remote]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    // In order: a chunk goes at its own time, but never before the one sent ahead of it.
    let lastRelease = 0;
    const forward = (send: () => void) => {
      lastRelease = Math.max(Date.now() + holdMs, lastRelease);
      setTimeout(send, lastRelease - Date.now());
    };
    client.on('data', (chunk) => {
      if (holdMs > 0) held++;
      forward(() => remote.write(chunk));
    });
    client.on('end', () => forward(() => remote.end()));
    remote.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    /** From now on, what clients send reaches ClickHouse `ms` later (0: at once). */
    hold(ms: number) {
      holdMs = ms;
    },
    /** Chunks held so far. */
    held: () => held,
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
