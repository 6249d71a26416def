// Applies infra/clickhouse/migrations/*.sql in order, once each, recording them in schema_migrations.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClickHouse, queryRows } from '../../common/clients/clickhouse.ts';
import { syncLocations } from '../locations/sync.ts';

const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface MigrateOptions {
  url: string;
  username: string;
  password: string;
  database: string;
  log?: (message: string) => void;
  /** Also log the migrations that were applied before (`npm run migrate`: one line per file). */
  logUnchanged?: boolean;
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
      for (const statement of splitStatements(migration.sql)) await client.command({ query: statement });
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
