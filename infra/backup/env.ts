// What `npm run backup` and `npm run restore` read: the stores' connections (the local stack's when
// unset, as for every CLI outside production), and where the local stack keeps its data.
import path from 'node:path';
import { z } from 'zod';
import { parseEnv, sharedEnvSchema } from '../../common/env.ts';
import { inheritedEnvironment, readSettings } from '../local/settings.mjs';

export const backupEnvSchema = sharedEnvSchema
  .pick({
    NODE_ENV: true,
    KAFKA_BROKERS: true,
    KAFKA_TOPIC_PREFIX: true,
    CLICKHOUSE_URL: true,
    CLICKHOUSE_USER: true,
    CLICKHOUSE_PASSWORD: true,
    CLICKHOUSE_DATABASE: true,
    CLICKHOUSE_NODES: true,
    REDIS_URL: true,
    REDIS_CLUSTER_NODES: true,
  })
  // npm runs scripts in the repository; a relative backup directory is relative to where the
  // operator typed the command.
  .extend({ INIT_CWD: z.string().optional() });
export type BackupEnv = z.infer<typeof backupEnvSchema>;

export function readBackupEnv(): BackupEnv {
  return parseEnv(backupEnvSchema);
}

/** The backup directory the operator named, as an absolute path. */
export function backupDirectory(env: BackupEnv, dir: string): string {
  return path.resolve(env.INIT_CWD ?? '.', dir);
}

/**
 * The local stack of this RLS_STATE_DIR and these ports (infra/local/settings.mjs), with the
 * connection variables blanked: its directories and ports, whatever the URLs point at.
 */
export function localStackSettings() {
  return readSettings(
    { ...inheritedEnvironment(), KAFKA_BROKERS: '', CLICKHOUSE_URL: '', REDIS_URL: '' },
    { profile: 'start' },
  );
}

/** host:port of an http(s) or redis URL, with loopback names made one. */
export function endpoint(url: string): string {
  const parsed = new URL(url);
  const host = ['localhost', '::1', '[::1]'].includes(parsed.hostname) ? '127.0.0.1' : parsed.hostname;
  return `${host}:${parsed.port}`;
}
