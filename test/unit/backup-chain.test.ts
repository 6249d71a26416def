// The chain of an incremental backup: every base found (where it was, or moved beside the
// incremental), or the missing one named; each shard's backups listed under their ClickHouse names.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { backupChain, shardCopies } from '../../infra/backup/chain.ts';
import { MANIFEST_FORMAT, type Manifest, writeManifest } from '../../infra/backup/manifest.ts';

const dirs: string[] = [];
function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-backup-chain-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A backup with one ClickHouse shard in `dir`, incremental on `base` when given. */
function backup(dir: string, id: string, base?: { id: string; dir: string }): void {
  fs.mkdirSync(path.join(dir, 'clickhouse', 'shard-1'), { recursive: true });
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    id,
    ...(base ? { base: { ...base, created_at: '2026-01-01T00:00:00.000Z' } } : {}),
    created_at: '2026-01-02T00:00:00.000Z',
    completed_at: '2026-01-02T00:00:01.000Z',
    duration_ms: 1000,
    topology: 'single',
    versions: { service: '0.1.0', clickhouse: '26.7', redis: '7.0.15' },
    migration: { version: 1, name: 'init' },
    database: 'rls',
    offsets: {},
    kafka: { topics: [] },
    clickhouse: {
      shards: [
        { n: 1, name: `rls-backup-${id}-shard-1`, path: 'clickhouse/shard-1', bytes: 1, tables: 1, rows: 1 },
      ],
    },
    redis: { nodes: [] },
    bytes: 1,
  };
  writeManifest(dir, manifest);
}

describe('backupChain', () => {
  it('happy: an incremental on an incremental on a full backup, newest first', () => {
    const root = scratch();
    backup(path.join(root, 'full'), 'a');
    backup(path.join(root, 'inc1'), 'b', { id: 'a', dir: path.join(root, 'full') });
    backup(path.join(root, 'inc2'), 'c', { id: 'b', dir: path.join(root, 'inc1') });
    const chain = backupChain(path.join(root, 'inc2'));
    expect(chain.map((link) => link.manifest.id)).toEqual(['c', 'b', 'a']);
    expect(shardCopies(chain, 1)).toEqual([
      { name: 'rls-backup-c-shard-1', dir: path.join(root, 'inc2', 'clickhouse/shard-1') },
      { name: 'rls-backup-b-shard-1', dir: path.join(root, 'inc1', 'clickhouse/shard-1') },
      { name: 'rls-backup-a-shard-1', dir: path.join(root, 'full', 'clickhouse/shard-1') },
    ]);
  });

  it('happy: finds a base moved beside the incremental', () => {
    const before = scratch();
    const after = scratch();
    backup(path.join(after, 'full'), 'a');
    backup(path.join(after, 'inc'), 'b', { id: 'a', dir: path.join(before, 'full') });
    expect(backupChain(path.join(after, 'inc')).map((link) => link.dir)).toEqual([
      path.join(after, 'inc'),
      path.join(after, 'full'),
    ]);
  });

  it('unhappy: names the missing base, and a base that is another backup', () => {
    const root = scratch();
    backup(path.join(root, 'inc'), 'b', { id: 'a', dir: path.join(root, 'full') });
    expect(() => backupChain(path.join(root, 'inc'))).toThrow(
      `backup ${path.join(root, 'inc')} is incremental on the backup a taken at 2026-01-01T00:00:00.000Z in ${path.join(root, 'full')}, which is missing`,
    );
    backup(path.join(root, 'full'), 'other');
    expect(() => backupChain(path.join(root, 'inc'))).toThrow(
      `${path.join(root, 'full')} holds another backup (id other)`,
    );
  });

  it('unhappy: a base whose ClickHouse shard is gone', () => {
    const root = scratch();
    backup(path.join(root, 'full'), 'a');
    backup(path.join(root, 'inc'), 'b', { id: 'a', dir: path.join(root, 'full') });
    fs.rmSync(path.join(root, 'full', 'clickhouse'), { recursive: true });
    expect(() => backupChain(path.join(root, 'inc'))).toThrow(
      `backup ${path.join(root, 'full')} lacks its ClickHouse shard 1 (clickhouse/shard-1)`,
    );
  });
});
