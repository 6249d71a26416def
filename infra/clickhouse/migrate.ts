// Applies infra/clickhouse/migrations/*.sql in order, once each, recording them in schema_migrations.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClickHouse, queryRows } from '../../common/clients/clickhouse.ts';
import { syncLocations } from '../locations/sync.ts';
import { clusterStatements } from './topology.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface MigrateOptions {
  url: string;
  username: string;
  password: string;
  database: string;
  log?: (message: string) => void;
  /** Also log the migrations that were applied before (`npm run migrate`: one line per file). */
  logUnchanged?: boolean;
  /**
   * A sharded cluster: every migration is applied in its cluster form (topology.ts) to each node
   * in `nodes` (HTTP URLs; `url` is then ignored), whose remote_servers name the cluster `name`.
   * `replicated`: Replicated*MergeTree tables (production, with Keeper and {shard}/{replica}
   * macros on each node).
   */
  cluster?: { name: string; nodes: string[]; replicated: boolean };
}

export function readMigrations(): { version: number; name: string; sql: string; checksum: string }[] {
  return fs
    .readdirSync(migrationsDir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const sql = fs.readFileSync(path.join(migrationsDir, file), 'utf8');
      return {
        version: Number(file.slice(0, 4)),
        name: file,
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*$/m)
    .map((statement) =>
      statement
        .split('\n')
        .filter((line) => !line.trim().startsWith('--'))
        .join('\n')
        .trim(),
    )
    .filter(Boolean);
}

export async function migrate(options: MigrateOptions): Promise<string[]> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.database))
    throw new Error(`bad database name ${options.database}`);
  const { cluster } = options;
  if (!cluster) return migrateServer(options, (statement) => [statement]);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(cluster.name)) throw new Error(`bad cluster name ${cluster.name}`);
  const layout = { cluster: cluster.name, database: options.database, replicated: cluster.replicated };
  const done = new Set<string>();
  // Node by node: each holds its own schema_migrations, so a node added later catches up alone.
  for (const url of cluster.nodes) {
    const log = options.log && ((message: string) => options.log!(`${new URL(url).host}: ${message}`));
    for (const name of await migrateServer({ ...options, url, log }, (statement) =>
      clusterStatements(statement, layout),
    ))
      done.add(name);
  }
  return [...done];
}

async function migrateServer(
  options: MigrateOptions,
  transform: (statement: string) => string[],
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const server = createClickHouse({ ...options, database: 'default' });
  await server.command({
    query: 'CREATE DATABASE IF NOT EXISTS {database:Identifier}',
    query_params: { database: options.database },
  });
  await server.close();

  const client = createClickHouse(options);
  try {
    await client.command({
      query: `CREATE TABLE IF NOT EXISTS schema_migrations
              (version UInt32, name String, checksum String, applied_at DateTime('UTC'))
              ENGINE = MergeTree ORDER BY version`,
    });
    const applied = new Map(
      (
        await queryRows<{ version: number; checksum: string }>(
          client,
          'SELECT version, checksum FROM schema_migrations',
        )
      ).map((row) => [Number(row.version), row.checksum]),
    );
    const done: string[] = [];
    for (const migration of readMigrations()) {
      const previous = applied.get(migration.version);
      if (previous !== undefined) {
        if (previous !== migration.checksum) {
          throw new Error(
            `migration ${migration.name} changed after it was applied; add a new migration instead`,
          );
        }
        if (options.logUnchanged) log(`already applied ${migration.name}`);
        continue;
      }
      for (const statement of splitStatements(migration.sql))
        for (const query of transform(statement)) await client.command({ query });
      await client.command({
        query: `INSERT INTO schema_migrations (version, name, checksum, applied_at)
                SELECT {version:UInt32}, {name:String}, {checksum:String}, now()`,
        query_params: { version: migration.version, name: migration.name, checksum: migration.checksum },
      });
      log(`applied ${migration.name}`);
      done.push(migration.name);
    }
    // Reference data that queries join on: (re)loaded when the dataset's version is not stored yet.
    const loaded = await syncLocations(client);
    if (loaded) log(`loaded ${loaded} locations`);
    else if (options.logUnchanged) log('locations up to date');
    return done;
  } finally {
    await client.close();
  }
}
