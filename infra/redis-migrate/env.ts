// The environment of `npm run redis:migrate`: the Redis the services use, read with the services'
// own variables (common/env.ts), and the prefix the previous release wrote its keys under.
import type { z } from 'zod';
import { parseEnv, sharedEnvSchema } from '../../common/env.ts';

export const migrateEnvSchema = sharedEnvSchema.pick({
  REDIS_URL: true,
  REDIS_CLUSTER_NODES: true,
  REDIS_KEY_PREFIX: true,
  REDIS_GLOBAL_PARTS: true,
});
export type MigrateEnv = z.infer<typeof migrateEnvSchema>;

export const readMigrateEnv = (env: NodeJS.ProcessEnv = process.env): MigrateEnv =>
  parseEnv(migrateEnvSchema, env);

/**
 * The prefix the previous release wrote every key under: REDIS_KEY_PREFIX on one node; on a
 * cluster the prefix as a hash tag (`rls:` → `{rls:}`) unless it carried one, so that every key was
 * in one slot. The rule is copied from that release (it is removed from the services once every
 * family has its own tag; the migration must keep knowing it).
 */
export function previousPrefix(prefix: string, cluster: boolean): string {
  if (!cluster) return prefix;
  return /\{[^}]+\}/.test(prefix) ? prefix : `{${prefix}}`;
}
