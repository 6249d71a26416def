import { z } from 'zod';
import { baseEnvSchema, envFields } from '../common/env.ts';

export const streamEnvSchema = baseEnvSchema.extend({
  STREAM_GROUP_PREFIX: envFields.topicPrefix.default('rls'),
  SINK_MAX_ROWS: envFields.positiveInt.default(10_000),
  SINK_MAX_DELAY_MS: envFields.positiveInt.default(300),
  STREAM_WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,64}$/)
    .optional(),
});
export type StreamEnv = z.infer<typeof streamEnvSchema>;
