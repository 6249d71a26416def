// The ClickHouse part of a backup: `BACKUP DATABASE … TO File(…)` on every server (each shard of a
// sharded cluster holds its own rows), and `RESTORE DATABASE … FROM File(…)` back. A server writes
// and reads File() backups only under its `backups.allowed_path` (the local stack's: <server
// dir>/backups/, infra/local/clickhouse-config.mjs), so the backup is moved from there into the
// operator's directory afterwards, and copied back there to restore.
import fs from 'node:fs';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { directoryBytes, moveDirectory } from './files.ts';

/** A server of the topology with the directory its File() backups live in. */
export interface ClickHouseTarget {
  n: number;
  client: ClickHouseClient;
  /** The server's backups.allowed_path on this machine. */
  backupsDir: string;
}

export interface ClickHouseShardBackup {
  n: number;
  /** Directory of this shard's backup, relative to the backup directory. */
  path: string;
  bytes: number;
  tables: number;
  rows: number;
}

/** `'text'` as a ClickHouse string literal (names of our own making; quotes escaped anyway). */
function literal(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function checkIdentifier(database: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database)) throw new Error(`bad database name ${database}`);
  return database;
}

/** Tables and rows of the database's MergeTree tables on one server (what a restore must show). */
export async function tableCounts(
  client: ClickHouseClient,
  database: string,
): Promise<{ tables: number; rows: number }> {
  const [row] = await queryRows<{ tables: string; rows: string }>(
    client,
    `SELECT count() AS tables, sum(ifNull(total_rows, 0)) AS rows FROM system.tables
     WHERE database = {database:String} AND engine LIKE '%MergeTree'`,
    { database },
  );
  return { tables: Number(row?.tables ?? 0), rows: Number(row?.rows ?? 0) };
}

/** The newest applied migration (schema_migrations, recorded by infra/clickhouse/migrate.ts). */
export async function migrationLevel(
  client: ClickHouseClient,
  database: string,
): Promise<{ version: number; name: string }> {
  const [row] = await queryRows<{ v: number; n: string }>(
    client,
    `SELECT max(version) AS v, argMax(name, version) AS n FROM ${checkIdentifier(database)}.schema_migrations`,
  );
  return { version: Number(row?.v ?? 0), name: row?.n ?? '' };
}

/** Backs up `database` of one server into `<backupDir>/clickhouse/shard-<n>`. */
export async function backupShard(
  target: ClickHouseTarget,
  database: string,
  backupDir: string,
): Promise<ClickHouseShardBackup> {
  const name = `rls-backup-${Date.now()}-${target.n}`;
  const counts = await tableCounts(target.client, database);
  await target.client.command({
    query: `BACKUP DATABASE ${checkIdentifier(database)} TO File(${literal(name)})`,
  });
  const relative = path.join('clickhouse', `shard-${target.n}`);
  const destination = path.join(backupDir, relative);
  moveDirectory(path.join(target.backupsDir, name), destination);
  return { n: target.n, path: relative, bytes: directoryBytes(destination), ...counts };
}

/**
 * Restores one server's shard of `database` from the backup. The database must be missing or
 * without tables there: a restore goes into an empty store, never over live data.
 */
export async function restoreShard(
  target: ClickHouseTarget,
  database: string,
  backupDir: string,
  shard: ClickHouseShardBackup,
): Promise<{ tables: number; rows: number }> {
  const present = await tableCounts(target.client, database);
  if (present.tables > 0)
    throw new Error(
      `ClickHouse server ${target.n} already has ${present.tables} tables in database ${database}: ` +
        'restore goes into an empty store (stop the stack and delete its ClickHouse data first)',
    );
  const name = `rls-restore-${Date.now()}-${target.n}`;
  const staged = path.join(target.backupsDir, name);
  fs.mkdirSync(target.backupsDir, { recursive: true });
  fs.cpSync(path.join(backupDir, shard.path), staged, { recursive: true });
  try {
    await target.client.command({
      query: `RESTORE DATABASE ${checkIdentifier(database)} FROM File(${literal(name)})`,
    });
  } finally {
    fs.rmSync(staged, { recursive: true, force: true });
  }
  return tableCounts(target.client, database);
}
