// Stream workers (npm run start:stream): consumer-group members that store listings from Kafka in
// ClickHouse. Run as many as there are partitions; each reports to /healthz through Redis.
import { hostname } from 'node:os';
import { createProducer } from '../common/clients/kafka.ts';
import { parseEnv } from '../common/env.ts';
import { errorFields } from '../common/logger.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { HEARTBEAT_INTERVAL_MS, workerRegistry } from '../common/worker-registry.ts';
import { startUsageRollup } from '../common/usage/scheduler.ts';
import { streamEnvSchema } from './env.ts';
import { createListingsHandler, listingColumns } from './listings/handler.ts';
import { startOffsetConsumer } from './offset-consumer.ts';
import { createClickHouseWriter } from './sink/clickhouse-writer.ts';
import { createQuarantine, quarantineColumns } from './sink/quarantine.ts';

await runProcess('stream', async (logger) => {
  const env = parseEnv(streamEnvSchema);
  const workerId = env.STREAM_WORKER_ID ?? `${hostname()}-${process.pid}`;
  const platform = await startPlatform(env, logger, `rls-stream-${workerId}`);
  const producer = await createProducer(platform.kafka);
  const writerOptions = { maxRows: env.SINK_MAX_ROWS, maxDelayMs: env.SINK_MAX_DELAY_MS, logger };
  const listingsWriter = createClickHouseWriter(platform.clickhouse, {
    ...writerOptions,
    table: 'listings',
    columns: listingColumns,
  });
  const quarantineWriter = createClickHouseWriter(platform.clickhouse, {
    ...writerOptions,
    table: 'quarantine',
    columns: quarantineColumns,
  });
  const listingsTopic = platform.topic('rls.listings.v1');
  const listings = await startOffsetConsumer({
    kafka: platform.kafka,
    clickhouse: platform.clickhouse,
    groupId: `${env.STREAM_GROUP_PREFIX}${env.KAFKA_TOPIC_PREFIX}.listings-sink`,
    topic: listingsTopic,
    provenanceTables: ['listings', 'quarantine'],
    handler: createListingsHandler(
      listingsWriter,
      createQuarantine(quarantineWriter, producer, platform.topic('rls.deadletter.v1'), 'listings'),
    ),
    writers: [listingsWriter, quarantineWriter],
    logger: logger.child({ consumer: 'listings' }),
  });

  const registry = workerRegistry(platform.redis, env.REDIS_KEY_PREFIX);
  const startedAt = new Date().toISOString();
  const beat = async () => {
    const consumers = { listings: { partitions: listings.assigned(), lag: listings.lag() } };
    await registry.beat({
      worker_id: workerId,
      role: 'stream',
      pid: process.pid,
      started_at: startedAt,
      consumers,
    });
  };
  await beat().catch(() => undefined);
  const beatTimer = setInterval(() => {
    beat().catch((error) => logger.warn('heartbeat to redis failed', errorFields(error)));
    logger.debug('lag', { listings: listings.lag() });
  }, HEARTBEAT_INTERVAL_MS);
  const usageRollup = startUsageRollup(platform, process.env); // Redis usage counters → ClickHouse
  logger.info('stream worker running', { worker_id: workerId });

  return {
    async stop() {
      clearInterval(beatTimer);
      await usageRollup.stop();
      await listings.stop();
      await registry.remove(workerId).catch(() => undefined);
      await producer.disconnect();
      await platform.close();
    },
  };
});
