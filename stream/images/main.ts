// The image process (npm run start:images): its own consumer group on rls.listings.v1 checks every
// listing image, downloads, decodes (in child processes), hashes and tags the photos, and stores
// image_checks and listing_images (checker.ts, photos.ts). Apart from the stream worker so the
// photo model and the decoders' memory and CPU stay out of it, and so photo work can be scaled or
// placed on its own machine: run as many as there are partitions. Reports its partitions and lag
// to /healthz through Redis like a stream worker (role `images`).
import { hostname } from 'node:os';
import { startPlatform } from '../../common/platform.ts';
import { runProcess } from '../../common/run.ts';
import { startWorkerReporting } from '../worker-reporting.ts';
import { startImageChecker } from './checker.ts';
import { imagesProcessEnvSchema } from './process-env.ts';

await runProcess('images', imagesProcessEnvSchema, async (env, logger) => {
  const workerId = `images-${env.IMAGES_WORKER_ID ?? `${hostname()}-${process.pid}`}`;
  const platform = await startPlatform(env, logger, `rls-images-${workerId}`);
  const images = await startImageChecker(platform, env, env, logger, {
    maxBytesPerPartition: env.IMAGES_FETCH_MAX_BYTES_PER_PARTITION,
  });

  const reporting = await startWorkerReporting({
    platform,
    env,
    workerId,
    role: 'images',
    consumers: { image_checks: images },
    ops: { port: env.IMAGES_METRICS_PORT, host: env.IMAGES_METRICS_HOST },
    logger,
  });
  logger.info('image process running', { worker_id: workerId });

  return {
    async stop() {
      await reporting.stop();
      await images.stop();
      await reporting.leave();
      await platform.close();
    },
  };
});
