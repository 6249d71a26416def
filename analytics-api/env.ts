import { z } from 'zod';
import { baseEnvSchema, envFields } from '../common/env.ts';

export const analyticsEnvSchema = baseEnvSchema.extend({
  PORT: envFields.port.default(8082),
});
export type AnalyticsEnv = z.infer<typeof analyticsEnvSchema>;
