// The file side of backup and restore: a Redis snapshot placed so that a server with the
// append-only file on loads it, never over existing data; manifests that are not ours refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { directoryBytes, moveDirectory } from '../../infra/backup/files.ts';
import { MANIFEST_FILE, readManifest } from '../../infra/backup/manifest.ts';
import { placeSnapshot } from '../../infra/backup/redis-backup.ts';

const dirs: string[] = [];
function scratch(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-backup-unit-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('placeSnapshot', () => {
  it('happy: the snapshot becomes dump.rdb and the base of the append-only file', () => {
    const dir = scratch();
    const snapshot = path.join(dir, 'node-1.rdb');
    fs.writeFileSync(snapshot, 'REDIS0010…');
    const data = path.join(dir, 'redis');
    placeSnapshot(snapshot, data);
    expect(fs.readFileSync(path.join(data, 'dump.rdb'), 'utf8')).toBe('REDIS0010…');
    expect(fs.readFileSync(path.join(data, 'appendonlydir', 'appendonly.aof.1.base.rdb'), 'utf8')).toBe(
      'REDIS0010…',
    );
    expect(fs.readFileSync(path.join(data, 'appendonlydir', 'appendonly.aof.manifest'), 'utf8')).toBe(
      'file appendonly.aof.1.base.rdb seq 1 type b\n',
    );
  });

  it('error: refuses a data directory that holds data', () => {
    const dir = scratch();
    const snapshot = path.join(dir, 'node-1.rdb');
    fs.writeFileSync(snapshot, 'x');
    fs.mkdirSync(path.join(dir, 'redis', 'appendonlydir'), { recursive: true });
    expect(() => placeSnapshot(snapshot, path.join(dir, 'redis'))).toThrow(/not empty \(appendonlydir\)/);
  });
});

describe('readManifest', () => {
  it('error: a directory without a backup, or with a manifest that is not ours', () => {
    const dir = scratch();
    expect(() => readManifest(dir)).toThrow(/holds no backup/);
    fs.writeFileSync(path.join(dir, MANIFEST_FILE), JSON.stringify({ format: 'other' }));
    expect(() => readManifest(dir)).toThrow(/not a manifest of this service's backups: format/);
  });
});

describe('moveDirectory and directoryBytes', () => {
  it('happy: moves a tree and counts its bytes', () => {
    const dir = scratch();
    fs.mkdirSync(path.join(dir, 'a', 'b'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'a', 'one'), '123');
    fs.writeFileSync(path.join(dir, 'a', 'b', 'two'), '45');
    moveDirectory(path.join(dir, 'a'), path.join(dir, 'moved', 'here'));
    expect(fs.existsSync(path.join(dir, 'a'))).toBe(false);
    expect(directoryBytes(path.join(dir, 'moved', 'here'))).toBe(5);
  });
});
