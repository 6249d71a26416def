// Settings of the image checker (docs/webhooks.md, "Image checks"), part of the image process's
// environment (process-env.ts).
import { z } from 'zod';
import { envFields } from '../../common/env.ts';

export const imageCheckerEnvSchema = z.object({
  /** Image requests in flight per worker. */
  IMAGE_CHECK_CONCURRENCY: envFields.positiveInt.default(16),
  /** Slots one account may hold while others wait; idle ones are lent beyond it (pools.ts). */
  IMAGE_CHECK_PER_ACCOUNT: envFields.positiveInt.default(4),
  /** Image requests in flight per resolved address (politeness towards integrators' image servers). */
  IMAGE_CHECK_PER_HOST: envFields.positiveInt.default(2),
  IMAGE_CHECK_TIMEOUT_MS: envFields.positiveInt.max(30_000).default(10_000),
});
export type ImageCheckerEnv = z.infer<typeof imageCheckerEnvSchema>;
