// `npm run topics`: creates the topics of infra/kafka/topics.json on the configured brokers
// (KAFKA_BROKERS, or the local stack's when unset), named with KAFKA_TOPIC_PREFIX. Partitions come
// from topics.json unless KAFKA_PARTITIONS overrides them all. The replication factor defaults to
// min(3, brokers in the cluster); KAFKA_REPLICATION_FACTOR sets it, and 1 on a cluster of several
// brokers also needs KAFKA_ALLOW_SINGLE_REPLICA=1. New topics get min.insync.replicas 2 at
// replication 3 (else 1). Idempotent: an existing topic is reported and never changed, with a
// warning when it is less durable than that. One line per topic; non-zero exit on failure.
import { z } from 'zod';
import { createKafka } from '../../common/clients/kafka.ts';
import { envFields, parseEnv, sharedEnvSchema } from '../../common/env.ts';
import { createLogger } from '../../common/logger.ts';
import { runCommand } from '../../common/run.ts';
import { createTopics } from './create-topics.ts';

await runCommand('topics', async () => {
  const env = parseEnv(
    sharedEnvSchema.pick({ KAFKA_BROKERS: true, KAFKA_TOPIC_PREFIX: true }).extend({
      KAFKA_PARTITIONS: envFields.positiveInt.optional(),
      KAFKA_REPLICATION_FACTOR: envFields.positiveInt.optional(),
      KAFKA_ALLOW_SINGLE_REPLICA: z.enum(['0', '1']).default('0'),
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
    allowSingleReplica: env.KAFKA_ALLOW_SINGLE_REPLICA === '1',
    log: (message) => process.stdout.write(`topics: ${message}\n`),
    warn: (message) => process.stderr.write(`topics: warning: ${message}\n`),
  });
});
