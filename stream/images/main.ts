// The image process (npm run start:images): its own consumer group on rls.listings.v1 checks every
// listing image, downloads, decodes (in child processes), hashes and tags the photos, and stores
// image_checks and listing_images (checker.ts, photos.ts). Apart from the stream worker so the
// photo model and the decoders' memory and CPU stay out of it, and so photo work can be scaled or
// placed on its own machine: run as many as there are partitions. Reports its partitions and lag
// to /healthz through Redis like a stream worker (role `images`).
import { hostname } from 'node:os';
import { errorFields } from '../../common/logger.ts';
import { startPlatform } from '../../common/platform.ts';
import { runProcess } from '../../common/run.ts';
import { HEARTBEAT_INTERVAL_MS, workerRegistry } from '../../common/worker-registry.ts';
import { startOpsServer } from '../ops-server.ts';
import { startImageChecker } from './checker.ts';
import { imagesProcessEnvSchema } from './process-env.ts';

await runProcess('images', imagesProcessEnvSchema, async (env, logger) => {
  const workerId = `images-${env.IMAGES_WORKER_ID ?? `${hostname()}-${process.pid}`}`;
  const platform = await startPlatform(env, logger, `rls-images-${workerId}`);
  const images = await startImageChecker(platform, env, env, logger, {
    maxBytesPerPartition: env.IMAGES_FETCH_MAX_BYTES_PER_PARTITION,
  });

  const registry = workerRegistry(platform.redis, env.REDIS_KEY_PREFIX);
  const startedAt = new Date().toISOString();
  let beats = 0;
  const beat = async () => {
    const report = { image_checks: { partitions: images.assigned(), lag: images.lag() } };
    if (beats++ % 10 === 0)
      logger.info('lag', { lag: report, rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20) });
    await registry.beat({
      worker_id: workerId,
      role: 'images',
      pid: process.pid,
      started_at: startedAt,
      consumers: report,
    });
  };
  await beat().catch(() => undefined);
  const beatTimer = setInterval(() => {
    beat().catch((error) => logger.warn('heartbeat to redis failed', errorFields(error)));
  }, HEARTBEAT_INTERVAL_MS);
  const ops = await startOpsServer({
    port: env.IMAGES_METRICS_PORT,
    host: env.IMAGES_METRICS_HOST,
    platform,
    consumers: { image_checks: images },
    env,
    logger,
  });
  logger.info('image process running', { worker_id: workerId });

  return {
    async stop() {
      clearInterval(beatTimer);
      await ops.close();
      await images.stop();
      await registry.remove(workerId).catch(() => undefined);
      await platform.close();
    },
  };
});
