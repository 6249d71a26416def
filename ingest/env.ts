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

/** PORT when unset. */
export const INGEST_DEFAULT_PORT = 8081;

/** What the ingest routes read (webhook registration calls out), whichever process serves them. */
export const ingestSettingsSchema = outboundEnvSchema;
export type IngestSettings = z.infer<typeof ingestSettingsSchema>;

export const ingestEnvSchema = baseEnvSchema
  .extend(ingestSettingsSchema.shape)
  .extend(listenerEnvSchema.shape)
  .extend(tlsEnvSchema.shape)
  .superRefine(checkListenerEnv)
  .superRefine(checkTlsEnv);
export type IngestEnv = z.infer<typeof ingestEnvSchema>;
