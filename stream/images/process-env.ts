// Settings of the image process (npm run start:images; docs/configuration.md, "Variables"): the platform's,
// the image checker's, the photo analysis's, and its own listener and identity.
import { z } from 'zod';
import { checkListenerEnv, envFields, workerEnvSchema } from '../../common/env.ts';
import { imageCheckerEnvSchema } from './env.ts';
import { photoEnvSchema } from './photo-env.ts';

export const imagesProcessEnvSchema = workerEnvSchema
  .extend(imageCheckerEnvSchema.shape)
  .extend(photoEnvSchema.shape)
  .extend({
    /** Bytes one fetch may bring per partition (as the stream worker's STREAM_FETCH_MAX_BYTES_PER_PARTITION). */
    IMAGES_FETCH_MAX_BYTES_PER_PARTITION: envFields.positiveInt.default(1024 * 1024),
    /** The process's /metrics, /livez and /readyz listener; 0: any free port. */
    IMAGES_METRICS_PORT: envFields.port.default(9465),
    /** Its address: loopback unless a Prometheus on another host scrapes it (as STREAM_METRICS_HOST). */
    IMAGES_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    IMAGES_WORKER_ID: envFields.workerId,
  })
  .superRefine(checkListenerEnv);
export type ImagesProcessEnv = z.infer<typeof imagesProcessEnvSchema>;
