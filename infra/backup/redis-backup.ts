// The Redis part of a backup: an RDB snapshot of every master, taken with `redis-cli --rdb` (the
// server forks and streams its data set as it would to a new replica: writes go on meanwhile), and
// the restore of such a snapshot into a stopped node's empty data directory.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';

const run = promisify(execFile);

export interface RedisNodeBackup {
  /** host:port the snapshot was taken from. */
  node: string;
  /** The master's hash slots ("0-5460"), in a cluster. */
  slots?: string;
  /** The snapshot, relative to the backup directory. */
  path: string;
  bytes: number;
}

/** The URL of `node` (host:port) with the credentials and scheme of `url`. */
function nodeUrl(url: string, node: string): string {
  const target = new URL(url);
  target.host = node;
  return target.toString();
}

/** Masters of a Redis Cluster (host:port and their slot ranges), as the first reachable seed sees them. */
export async function clusterMasters(
  url: string,
  seeds: string[],
): Promise<{ node: string; slots: string }[]> {
  for (const seed of seeds) {
    const client = new Redis(nodeUrl(url, seed), {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
    });
    try {
      await client.connect();
      const lines = String(await client.call('CLUSTER', 'NODES'))
        .trim()
        .split('\n');
      return lines
        .map((line) => line.split(' '))
        .filter((fields) => fields[2]?.split(',').includes('master') && !fields[2].includes('fail'))
        .map((fields) => ({ node: fields[1]!.split('@')[0]!, slots: fields.slice(8).join(' ') }))
        .filter((master) => master.slots !== '');
    } catch {
      continue; // the next seed
    } finally {
      client.disconnect();
    }
  }
  throw new Error(`no Redis Cluster node of ${seeds.join(', ')} answered CLUSTER NODES`);
}

/** Streams an RDB snapshot of one server into `<backupDir>/redis/<name>.rdb`. */
export async function snapshotNode(
  url: string,
  node: string,
  backupDir: string,
  name: string,
): Promise<RedisNodeBackup> {
  const relative = path.join('redis', `${name}.rdb`);
  const file = path.join(backupDir, relative);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    await run('redis-cli', ['-u', nodeUrl(url, node), '--no-auth-warning', '--rdb', file], {
      timeout: 60 * 60_000,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`Redis snapshot of ${node} failed: ${stderr || (error as Error).message}`);
  }
  return { node, path: relative, bytes: fs.statSync(file).size };
}

/** Refuses a stopped node's data directory that holds data (an AOF or a dump). */
export function expectNoData(dataDir: string): void {
  for (const existing of [path.join(dataDir, 'dump.rdb'), path.join(dataDir, 'appendonlydir')])
    if (fs.existsSync(existing))
      throw new Error(
        `Redis data directory ${dataDir} is not empty (${path.basename(existing)}): restore goes into ` +
          'an empty store (stop the stack and delete its Redis data first)',
      );
}

/**
 * Puts a snapshot into a stopped node's data directory, which must hold no data: as `dump.rdb`,
 * and as the base of the append-only file (appendonlydir/, one-line manifest), since a server with
 * `appendonly yes` loads the append-only file and would ignore a lone dump.rdb.
 */
export function placeSnapshot(snapshot: string, dataDir: string): void {
  expectNoData(dataDir);
  const aofDir = path.join(dataDir, 'appendonlydir');
  fs.mkdirSync(aofDir, { recursive: true });
  fs.copyFileSync(snapshot, path.join(dataDir, 'dump.rdb'));
  fs.copyFileSync(snapshot, path.join(aofDir, 'appendonly.aof.1.base.rdb'));
  fs.writeFileSync(
    path.join(aofDir, 'appendonly.aof.manifest'),
    'file appendonly.aof.1.base.rdb seq 1 type b\n',
  );
}
