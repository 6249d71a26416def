// `npm run topics`: creates the topics of infra/kafka/topics.json on the configured brokers
// (KAFKA_BROKERS, or the local stack's when unset), named with KAFKA_TOPIC_PREFIX. Partitions come
// from topics.json unless KAFKA_PARTITIONS overrides them all; KAFKA_REPLICATION_FACTOR defaults
// to 1 (the local single broker; use 3 on a production cluster). Idempotent: an existing topic is
// reported and never changed. One line per topic; non-zero exit on failure.
import { z } from 'zod';
import { createKafka } from '../../common/clients/kafka.ts';
import { envFields, parseEnv } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { runCommand } from '../../common/run.ts';
import { createTopics } from './create-topics.ts';

await runCommand('topics', async () => {
  const env = parseEnv(
    z.object({
      KAFKA_BROKERS: envFields.kafkaBrokers,
      KAFKA_TOPIC_PREFIX: envFields.topicPrefix,
      KAFKA_PARTITIONS: envFields.positiveInt.optional(),
      KAFKA_REPLICATION_FACTOR: envFields.positiveInt.default(1),
    }),
  );
  process.stdout.write(`topics: brokers ${env.KAFKA_BROKERS.join(',')}\n`);
  // kafkajs logs every refused connection; the one-line failure below says the same once.
  const kafka = createKafka(
    env.KAFKA_BROKERS,
    'rls-topics',
    createLogger('error', {}, () => undefined),
  );
  await createTopics(kafka, env.KAFKA_TOPIC_PREFIX, {
    partitions: env.KAFKA_PARTITIONS,
    replicationFactor: env.KAFKA_REPLICATION_FACTOR,
    log: (message) => process.stdout.write(`topics: ${message}\n`),
  });
});
