// The ingest API's environment (npm run start:ingest; docs/configuration.md, "Variables"), parsed once at boot.
import { z } from 'zod';
import {
  baseEnvSchema,
  checkListenerEnv,
  checkTlsEnv,
  listenerEnvSchema,
  outboundEnvSchema,
  tlsEnvSchema,
} from '../common/env.ts';
import { benchBuildEnvSchema, checkBenchBuildEnv } from '../common/bench-build.ts';

/** PORT when unset. */
export const INGEST_DEFAULT_PORT = 8081;

/**
 * What the ingest routes read (webhook registration calls out; a benchmark build's switches:
 * common/bench-build.ts), whichever process serves them. A schema that takes these fields also
 * takes `superRefine(checkBenchBuildEnv)`.
 */
export const ingestSettingsSchema = outboundEnvSchema.extend(benchBuildEnvSchema.shape);
export type IngestSettings = z.infer<typeof ingestSettingsSchema>;

export const ingestEnvSchema = baseEnvSchema
  .extend(ingestSettingsSchema.shape)
  .extend(listenerEnvSchema.shape)
  .extend(tlsEnvSchema.shape)
  .superRefine(checkListenerEnv)
  .superRefine(checkTlsEnv)
  .superRefine(checkBenchBuildEnv);
export type IngestEnv = z.infer<typeof ingestEnvSchema>;
