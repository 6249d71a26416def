// The peer's consumer: a kafkajs group consumer that buffers the rows of each message and inserts
// them into one MergeTree table once a second or at 10,000 rows, whichever comes first, committing
// the offsets it buffered after the insert (at least once; a redelivery is stored twice). Started
// by bench:stream (bench/peer/run.ts).
import { createClient } from '@clickhouse/client';
import { Kafka, logLevel } from 'kafkajs';
// Only the filter of kafkajs' negative-timeout warnings: the peer runs kafkajs as published.
import '../../common/clients/kafkajs-timers.ts';
import { peerEnv } from './env.ts';
import { PEER_TABLE, peerRows, type PeerMessage } from './table.ts';

const MAX_ROWS = 10_000;
const MAX_WAIT_MS = 1_000;

const clickhouse = createClient({
  url: peerEnv.CLICKHOUSE_URL,
  username: peerEnv.CLICKHOUSE_USER,
  password: peerEnv.CLICKHOUSE_PASSWORD,
  database: peerEnv.PEER_DATABASE,
});
const kafka = new Kafka({
  clientId: 'bench-peer-consumer',
  brokers: peerEnv.KAFKA_BROKERS,
  logLevel: logLevel.ERROR,
});
const consumer = kafka.consumer({ groupId: peerEnv.PEER_GROUP });

let rows: ReturnType<typeof peerRows> = [];
let offsets = new Map<number, string>(); // partition → next offset to commit
let flushing: Promise<void> = Promise.resolve();

/** Inserts what is buffered, then commits the offsets of the messages it came from; one at a time. */
function flush(): Promise<void> {
  // A failed insert leaves its offsets uncommitted (redelivered after a restart); the next goes on.
  flushing = flushing
    .catch(() => undefined) // a failed insert rejected the flush its caller awaited; the chain goes on
    .then(async () => {
      if (!rows.length) return;
      const batch = rows;
      const commit = offsets;
      rows = [];
      offsets = new Map();
      await clickhouse.insert({ table: PEER_TABLE, values: batch, format: 'JSONEachRow' });
      await consumer.commitOffsets(
        [...commit].map(([partition, offset]) => ({ topic: peerEnv.PEER_TOPIC, partition, offset })),
      );
    });
  return flushing;
}

const joined = new Promise((resolve) => consumer.on(consumer.events.GROUP_JOIN, resolve));
await consumer.connect();
await consumer.subscribe({ topic: peerEnv.PEER_TOPIC, fromBeginning: true });
await consumer.run({
  autoCommit: false,
  eachMessage: async ({ partition, message }) => {
    rows.push(...peerRows(JSON.parse(message.value!.toString('utf8')) as PeerMessage));
    offsets.set(partition, (BigInt(message.offset) + 1n).toString());
    if (rows.length >= MAX_ROWS) await flush();
  },
});
const timer = setInterval(
  () => void flush().catch((error: unknown) => console.error('peer insert failed', error)),
  MAX_WAIT_MS,
);
await joined;
process.send?.('ready');

process.once('SIGTERM', () => {
  clearInterval(timer);
  void flush()
    .then(() => consumer.disconnect())
    .finally(() => process.exit(0));
});
