// Brings the local stack up (Redis, ClickHouse, Kafka in parallel), applies migrations and creates
// topics; brings down only what it started. External components (env URLs) are used as they are.
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { migrate } from '../clickhouse/migrate.ts';
import { createTopics } from '../kafka/create-topics.ts';
import { LOCAL_CLUSTER, startClickHouse, stopClickHouse } from './clickhouse.mjs';
import { startKafka, stopKafka } from './kafka.mjs';
import { ensurePhotoModel } from './photo-model.mjs';
import { log } from './processes.mjs';
import { startRedis, stopRedis } from './redis.mjs';
import { serviceEnv } from './settings.mjs';

/** Namespacing inside one stack (tests of several checkouts sharing a broker and a server). */
export function namespaceEnv(env) {
  const ns = env.RLS_NAMESPACE;
  if (!ns) return {};
  if (!/^[a-z][a-z0-9]{0,20}$/.test(ns))
    throw new Error('RLS_NAMESPACE must be lowercase letters and digits');
  return { KAFKA_TOPIC_PREFIX: `${ns}.`, CLICKHOUSE_DATABASE: `rls_${ns}`, REDIS_KEY_PREFIX: `rls:${ns}:` };
}

export async function startStack(settings, env = process.env) {
  const started = [];
  const t0 = Date.now();
  const [redis, clickhouse, kafka, photoModel] = await Promise.all([
    startRedis(settings).then((r) => (r.startedPid && started.push('redis'), r)),
    startClickHouse(settings).then((r) => (r.startedPid && started.push('clickhouse'), r)),
    startKafka(settings).then((r) => (r.startedPid && started.push('kafka'), r)),
    // The stream's photo tagging model (converted once into the cache; PHOTO_MODEL_PATH wins).
    env.PHOTO_MODEL_PATH || ensurePhotoModel(settings),
  ]);
  const services = { ...serviceEnv(settings), ...namespaceEnv(env) };
  const database = env.CLICKHOUSE_DATABASE || services.CLICKHOUSE_DATABASE || 'rls';
  const applied = await migrate({
    url: clickhouse.url,
    username: env.CLICKHOUSE_USER || 'default',
    password: env.CLICKHOUSE_PASSWORD || '',
    database,
    log: (message) => log('clickhouse', message),
    // Two shards (cluster topology): sharded tables and Distributed ones on each node.
    cluster:
      clickhouse.urls.length > 1
        ? { name: LOCAL_CLUSTER, nodes: clickhouse.urls, replicated: false }
        : undefined,
  });
  log('clickhouse', `schema up to date in database ${database} (${applied.length} new migrations)`);
  const quiet = createLogger('error');
  const topicPrefix = env.KAFKA_TOPIC_PREFIX ?? services.KAFKA_TOPIC_PREFIX ?? '';
  const created = await createTopics(createKafka(kafka.brokers.split(','), 'rls-stack', quiet), topicPrefix);
  if (created.length) log('kafka', `created topics ${created.join(', ')}`);
  log('stack', `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return {
    env: {
      ...services,
      KAFKA_BROKERS: kafka.brokers,
      CLICKHOUSE_URL: clickhouse.url,
      REDIS_URL: redis.url,
      PHOTO_MODEL_PATH: photoModel,
    },
    started,
    async stop() {
      // Kafka first: it is the component whose clean shutdown takes longest.
      if (started.includes('kafka')) await stopKafka(settings);
      if (started.includes('clickhouse')) await stopClickHouse(settings);
      if (started.includes('redis')) await stopRedis(settings);
    },
  };
}
