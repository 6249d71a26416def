// Stream workers (npm run start:stream): consumer-group members that store listings and view events
// from Kafka in ClickHouse, effectively once (docs/stream.md). Run as many as there are partitions;
// each reports its partitions and lag to /healthz through Redis.
import { hostname } from 'node:os';
import { announceBenchBuild } from '../common/bench-build.ts';
import { createProducer } from '../common/clients/kafka.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { streamEnvSchema } from './env.ts';
import { estimateBacktestJob } from './jobs/estimate-backtest.ts';
import { keyAuditFlushJob } from './jobs/key-audit-flush.ts';
import { listingExpiryJob } from './jobs/listing-expiry.ts';
import { priceSummariesJob } from './jobs/price-summaries.ts';
import { scheduleJobs, type Job } from './jobs/schedule.ts';
import { usageRollupJob } from './jobs/usage-rollup.ts';
import { startPipelines } from './pipelines.ts';
import { startWebhookWorker } from './webhooks/worker.ts';
import { startWorkerReporting } from './worker-reporting.ts';

await runProcess('stream', streamEnvSchema, async (env, logger) => {
  announceBenchBuild(env, logger);
  const workerId = env.STREAM_WORKER_ID ?? `${hostname()}-${process.pid}`;
  const platform = await startPlatform(env, logger, `rls-stream-${workerId}`);
  const producer = await createProducer(platform.kafka);
  const consumers = await startPipelines(env, platform, producer, logger);
  const webhooks = await startWebhookWorker(platform, env, workerId, logger);

  const reporting = await startWorkerReporting({
    platform,
    env,
    workerId,
    role: 'stream',
    consumers,
    ops: { port: env.STREAM_METRICS_PORT, host: env.STREAM_METRICS_HOST },
    logger,
  });
  const statusTopic = platform.topic('rls.listing-status.v1');
  const jobs: Job[] = [
    usageRollupJob(platform, env.USAGE_ROLLUP_CRON),
    keyAuditFlushJob(platform, env.KEY_AUDIT_FLUSH_CRON),
    listingExpiryJob(platform, env.LIFECYCLE_EXPIRY_CRON, async (message) => {
      await producer.send({
        topic: statusTopic,
        messages: [{ key: message.account_id, value: JSON.stringify(message) }],
      });
    }),
  ];
  if (env.ESTIMATE_BACKTEST_CRON !== 'off')
    jobs.push(estimateBacktestJob(platform, env.ESTIMATE_BACKTEST_CRON, env.ESTIMATE_BACKTEST_MONTHS));
  if (env.PRICE_SUMMARIES_CRON !== 'off') jobs.push(priceSummariesJob(platform, env.PRICE_SUMMARIES_CRON));
  const scheduled = scheduleJobs(jobs, { redis: platform.redis, prefix: env.REDIS_KEY_PREFIX, logger });
  logger.info('stream worker running', { worker_id: workerId });

  return {
    async stop() {
      await reporting.stop();
      await scheduled.stop();
      // In parallel, so one slow consumer does not eat the others' share of the shutdown deadline.
      // Listings and status before views: the views consumer drains the shared quarantine writer.
      await Promise.all([
        Promise.all([consumers.listings.stop(), consumers.status.stop()]).then(() => consumers.views.stop()),
        webhooks.stop(),
      ]);
      await reporting.leave();
      await producer.disconnect();
      await platform.close();
    },
  };
});
