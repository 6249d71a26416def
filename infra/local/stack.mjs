// Brings the local stack up (Redis, ClickHouse, Kafka in parallel; one node each, or small clusters
// in the cluster topology), applies migrations and creates topics; brings down only what it
// started. External components (env URLs) are used as they are. A start that fails stops every
// node it started, so the next start does not find their ports taken.
import { createKafka } from '../../common/clients/kafka.ts';
import { createLogger } from '../../common/logger.ts';
import { migrate } from '../clickhouse/migrate.ts';
import { createTopics } from '../kafka/create-topics.ts';
import {
  LOCAL_CLUSTER,
  spreadClickHousePartDirectories,
  startClickHouse,
  stopClickHouse,
} from './clickhouse.mjs';
import { startKafka, stopKafka } from './kafka.mjs';
import { ensurePhotoModel } from './photo-model.mjs';
import { log } from './processes.mjs';
import { startRedis, stopRedis } from './redis.mjs';
import { inheritedEnvironment, serviceEnv } from './settings.mjs';

/** Namespacing inside one stack (tests of several checkouts sharing a broker and a server). */
export function namespaceEnv(env) {
  const ns = env.RLS_NAMESPACE;
  if (!ns) return {};
  if (!/^[a-z][a-z0-9]{0,20}$/.test(ns))
    throw new Error('RLS_NAMESPACE must be lowercase letters and digits');
  return { KAFKA_TOPIC_PREFIX: `${ns}.`, CLICKHOUSE_DATABASE: `rls_${ns}`, REDIS_KEY_PREFIX: `rls:${ns}:` };
}

/**
 * The stack's server components. Each `start` starts the nodes of the topology that are missing,
 * leaves running ones alone, stops what it started if it fails itself, and reports the node
 * numbers it started; `stop(settings, nodes?)` stops those (default: all of the component).
 */
export const components = [
  { name: 'redis', start: startRedis, stop: stopRedis },
  {
    name: 'clickhouse',
    start: async (settings) => {
      const result = await startClickHouse(settings);
      return { ...result, startedNodes: result.startedNodes ?? (result.startedPid ? [1] : []) };
    },
    stop: stopClickHouse,
  },
  { name: 'kafka', start: startKafka, stop: stopKafka },
];

/** Stops every node of the stack (or only `started`: component name → node numbers), together. */
export async function stopComponents(settings, started) {
  await Promise.all(
    components.map((c) => {
      if (!started) return c.stop(settings);
      const nodes = started[c.name];
      return nodes?.length ? c.stop(settings, nodes) : undefined;
    }),
  );
}

export async function startStack(settings, env = inheritedEnvironment()) {
  const started = {};
  const t0 = Date.now();
  log('stack', `topology ${settings.topology}`);
  const results = await Promise.allSettled([
    ...components.map((c) =>
      c.start(settings).then((r) => {
        started[c.name] = r.startedNodes;
        return r;
      }),
    ),
    // The stream's photo tagging model (converted once into the cache; PHOTO_MODEL_PATH wins).
    env.PHOTO_MODEL_PATH || ensurePhotoModel(settings),
  ]);
  const stop = () => stopComponents(settings, started);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const [redis, clickhouse, kafka, photoModel] = results.map((r) => r.value);
  try {
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
        clickhouse.urls?.length > 1
          ? { name: LOCAL_CLUSTER, nodes: clickhouse.urls, replicated: false }
          : undefined,
    });
    log('clickhouse', `schema up to date in database ${database} (${applied.length} new migrations)`);
    await spreadClickHousePartDirectories(settings);
    const quiet = createLogger('error');
    const topicPrefix = env.KAFKA_TOPIC_PREFIX ?? services.KAFKA_TOPIC_PREFIX ?? '';
    const created = await createTopics(
      createKafka(kafka.brokers.split(','), 'rls-stack', quiet),
      topicPrefix,
      {
        // Our own nodes: their number, not what a just-restarted cluster's metadata lists so far.
        replicationFactor: settings.kafka.external ? undefined : Math.min(3, settings.kafka.nodes.length),
      },
    );
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
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
