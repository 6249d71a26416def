// The ClickHouse part of a backup: `BACKUP DATABASE … TO File(…)` on every server (each shard of a
// sharded cluster holds its own rows), and `RESTORE DATABASE … FROM File(…)` back. A server writes
// and reads File() backups only under its `backups.allowed_path` (the local stack's: <server
// dir>/backups/, infra/local/clickhouse-config.mjs), so the backup is moved from there into the
// operator's directory afterwards, and linked back there to restore (with the bases of an
// incremental backup, under the names it records for them).
import fs from 'node:fs';
import path from 'node:path';
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from '../../common/clients/clickhouse.ts';
import type { ShardCopy } from './chain.ts';
import { directoryBytes, linkTree, moveDirectory } from './files.ts';

/** A server of the topology with the directory its File() backups live in. */
export interface ClickHouseTarget {
  n: number;
  client: ClickHouseClient;
  /** The server's backups.allowed_path on this machine. */
  backupsDir: string;
}

export interface ClickHouseShardBackup {
  n: number;
  /** The name ClickHouse knows the backup by (File('<name>')). */
  name: string;
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

/**
 * Puts each backup of a chain into the server's backups directory under the name ClickHouse knows it
 * by (an incremental backup names its base that way), as hard links; returns what to delete after.
 */
function stage(target: ClickHouseTarget, copies: ShardCopy[]): string[] {
  fs.mkdirSync(target.backupsDir, { recursive: true });
  return copies.map((copy) => {
    const staged = path.join(target.backupsDir, copy.name);
    fs.rmSync(staged, { recursive: true, force: true }); // left by an interrupted run of ours
    linkTree(copy.dir, staged);
    return staged;
  });
}

function unstage(staged: string[]): void {
  for (const dir of staged) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Backs up `database` of one server into `<backupDir>/clickhouse/shard-<n>`, as `name`. With
 * `base` (this shard's backups of the chain to build on, the newest first) the backup is
 * incremental: it holds only the files that are not in the base, and names the base.
 */
export async function backupShard(
  target: ClickHouseTarget,
  database: string,
  backupDir: string,
  name: string,
  base: ShardCopy[] = [],
): Promise<ClickHouseShardBackup> {
  const counts = await tableCounts(target.client, database);
  const staged = stage(target, base);
  try {
    const settings = base.length ? ` SETTINGS base_backup = File(${literal(base[0]!.name)})` : '';
    await target.client.command({
      query: `BACKUP DATABASE ${checkIdentifier(database)} TO File(${literal(name)})${settings}`,
    });
  } finally {
    unstage(staged);
  }
  const relative = path.join('clickhouse', `shard-${target.n}`);
  const destination = path.join(backupDir, relative);
  moveDirectory(path.join(target.backupsDir, name), destination);
  return { n: target.n, name, path: relative, bytes: directoryBytes(destination), ...counts };
}

/**
 * Restores one server's shard of `database` from `chain` (this shard's backup to restore, then the
 * bases it rests on: ClickHouse follows the names each one records). The database must be missing
 * or without tables there: a restore goes into an empty store, never over live data.
 */
export async function restoreShard(
  target: ClickHouseTarget,
  database: string,
  chain: ShardCopy[],
): Promise<{ tables: number; rows: number }> {
  const present = await tableCounts(target.client, database);
  if (present.tables > 0)
    throw new Error(
      `ClickHouse server ${target.n} already has ${present.tables} tables in database ${database}: ` +
        'restore goes into an empty store (stop the stack and delete its ClickHouse data first)',
    );
  const staged = stage(target, chain);
  try {
    await target.client.command({
      query: `RESTORE DATABASE ${checkIdentifier(database)} FROM File(${literal(chain[0]!.name)})`,
    });
  } finally {
    unstage(staged);
  }
  return tableCounts(target.client, database);
}
