// The gateway's environment (npm start's API process; docs/configuration.md, "Variables"), parsed once at
// boot: what the ingest and the analytics routes read, and the listener's.
import { z } from 'zod';
import { analyticsSettingsSchema } from '../analytics-api/env.ts';
import {
  baseEnvSchema,
  checkListenerEnv,
  checkTlsEnv,
  listenerEnvSchema,
  tlsEnvSchema,
} from '../common/env.ts';
import { checkBenchBuildEnv } from '../common/bench-build.ts';
import { ingestSettingsSchema } from '../ingest/env.ts';

/** PORT when unset (the contract's base URL). */
export const GATEWAY_DEFAULT_PORT = 8080;

export const gatewayEnvSchema = baseEnvSchema
  .extend(ingestSettingsSchema.shape)
  .extend(analyticsSettingsSchema.shape)
  .extend(listenerEnvSchema.shape)
  .extend(tlsEnvSchema.shape)
  .superRefine(checkListenerEnv)
  .superRefine(checkTlsEnv)
  .superRefine(checkBenchBuildEnv);
export type GatewayEnv = z.infer<typeof gatewayEnvSchema>;
