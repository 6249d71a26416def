import { z } from 'zod';
import { baseEnvSchema, envFields } from '../common/env.ts';

export const ingestEnvSchema = baseEnvSchema.extend({
  PORT: envFields.port.default(8081),
});
export type IngestEnv = z.infer<typeof ingestEnvSchema>;
