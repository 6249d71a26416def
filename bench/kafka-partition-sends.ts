// npm run bench:kafka-sends — how to send a batch over several partitions without losing one:
// one sendBatch checked for coverage (common/clients/kafka-covered-send.ts, what the services use)
// against one request per partition (the messages grouped by the default partitioner's choice,
// sent together). Prints messages/s for each, on the brokers of KAFKA_BROKERS (a 3-broker cluster
// shows the difference best: one request per broker against one per partition).
// Knobs: BENCH_SECONDS (10), BENCH_MESSAGES_PER_SEND (100), BENCH_PARTITIONS (6), BENCH_CONCURRENCY (4).
import { randomUUID } from 'node:crypto';
import { Partitioners, type Message, type Producer } from 'kafkajs';
import { createKafka, createProducer } from '../common/clients/kafka.ts';
import { createLogger } from '../common/logger.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const perSend = Number(process.env.BENCH_MESSAGES_PER_SEND ?? 100);
const partitions = Number(process.env.BENCH_PARTITIONS ?? 6);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const kafka = createKafka(brokers, 'bench-kafka-sends', createLogger('error'));
const topic = `rls-bench-sends-${randomUUID().slice(0, 8)}`;
const value = 'x'.repeat(600); // about a listing message

const admin = kafka.admin();
await admin.connect();
await admin.createTopics({
  waitForLeaders: true,
  topics: [{ topic, numPartitions: partitions, replicationFactor: Math.min(3, brokers.length) }],
});
const partitionMetadata = (await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]!.partitions;
const partitionOf = Partitioners.DefaultPartitioner();

const batch = (): Message[] => Array.from({ length: perSend }, () => ({ key: randomUUID(), value }));

async function coveredSend(producer: Producer): Promise<void> {
  await producer.sendBatch({ topicMessages: [{ topic, messages: batch() }] });
}

async function perPartitionSends(producer: Producer): Promise<void> {
  const groups = new Map<number, Message[]>();
  for (const message of batch()) {
    const partition = partitionOf({ topic, partitionMetadata, message });
    groups.set(partition, [...(groups.get(partition) ?? []), { ...message, partition }]);
  }
  await Promise.all([...groups.values()].map((messages) => producer.send({ topic, messages })));
}

async function measure(name: string, idempotent: boolean, send: (p: Producer) => Promise<void>) {
  const producer = await createProducer(kafka, { idempotent });
  const end = Date.now() + seconds * 1000;
  let sends = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        await send(producer);
        sends++;
      }
    }),
  );
  await producer.disconnect();
  const rate = Math.round((sends * perSend) / seconds);
  console.log(`${name.padEnd(44)} ${String(rate).padStart(7)} messages/s (${sends} batches of ${perSend})`);
}

console.log(
  `${brokers.length} broker(s), ${partitions} partitions, ${concurrency} concurrent senders, ${seconds} s each`,
);
for (const idempotent of [false, true]) {
  const kind = idempotent ? 'idempotent' : 'not idempotent';
  await measure(`one checked sendBatch (${kind})`, idempotent, coveredSend);
  await measure(`one request per partition (${kind})`, idempotent, perPartitionSends);
}
await admin.deleteTopics({ topics: [topic] });
await admin.disconnect();
