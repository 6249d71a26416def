// `npm run migrate`: applies the migrations to the configured ClickHouse server (CLICKHOUSE_URL,
// or the local stack's when unset), creating CLICKHOUSE_DATABASE if missing. Idempotent; prints
// one line per migration (applied, or already applied) and exits non-zero on any failure.
// With CLICKHOUSE_CLUSTER (the cluster's name in the servers' remote_servers) the migrations go to
// every server of CLICKHOUSE_NODES in their replicated cluster form: Replicated*MergeTree tables
// under /clickhouse/tables/{shard}/<database>/<table> with replica {replica} (each server's
// macros), Distributed tables of the schema's names over them (infra/clickhouse/topology.ts).
import { z } from 'zod';
import { parseEnv, sharedEnvSchema } from '../../common/env.ts';
import { runCommand } from '../../common/run.ts';
import { migrate } from './migrate.ts';

/** remote_servers name of the local stack's shards (infra/local/clickhouse.mjs, LOCAL_CLUSTER). */
const LOCAL_CLUSTER = 'rls';

await runCommand('migrate', async () => {
  const env = parseEnv(
    sharedEnvSchema
      .pick({
        NODE_ENV: true,
        CLICKHOUSE_URL: true,
        CLICKHOUSE_USER: true,
        CLICKHOUSE_PASSWORD: true,
        CLICKHOUSE_DATABASE: true,
        CLICKHOUSE_NODES: true,
      })
      .extend({
        CLICKHOUSE_CLUSTER: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a cluster name of remote_servers')
          .optional(),
      }),
  );
  if (env.CLICKHOUSE_CLUSTER && env.CLICKHOUSE_NODES.length === 0)
    throw new Error('CLICKHOUSE_CLUSTER needs CLICKHOUSE_NODES: the HTTP URL of every server of the cluster');
  // Several servers without a cluster name: the local stack's shards (development only; a
  // production cluster names its own, and is replicated).
  const localShards = !env.CLICKHOUSE_CLUSTER && env.CLICKHOUSE_NODES.length > 1;
  if (localShards && env.NODE_ENV === 'production')
    throw new Error('CLICKHOUSE_NODES lists several servers: set CLICKHOUSE_CLUSTER, the cluster they form');
  const target = new URL(env.CLICKHOUSE_URL); // printed without credentials
  process.stdout.write(`migrate: ${target.origin} database ${env.CLICKHOUSE_DATABASE}\n`);
  await migrate({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    database: env.CLICKHOUSE_DATABASE,
    log: (message) => process.stdout.write(`migrate: ${message}\n`),
    logUnchanged: true,
    cluster: env.CLICKHOUSE_CLUSTER
      ? { name: env.CLICKHOUSE_CLUSTER, nodes: env.CLICKHOUSE_NODES, replicated: true }
      : localShards
        ? { name: LOCAL_CLUSTER, nodes: env.CLICKHOUSE_NODES, replicated: false }
        : undefined,
  });
});
