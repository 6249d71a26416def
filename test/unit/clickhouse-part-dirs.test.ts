// The local stack marks ClickHouse's table directories with ext4's top-of-hierarchy flag, so that new
// parts are not created among their recently deleted predecessors (infra/local/clickhouse-part-dirs.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spreadPartDirectories, tableDirectories } from '../../infra/local/clickhouse-part-dirs.mjs';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A server data directory with two Atomic databases' table directories, a file and a part. */
function dataDirectory(): { data: string; tables: string[] } {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-part-dirs-'));
  made.push(data);
  const tables = ['0a1/0a1b2c3d-0000-4000-8000-000000000001', '7f2/7f2e9d00-0000-4000-8000-000000000002'].map(
    (relative) => path.join(data, 'store', relative),
  );
  for (const table of tables) fs.mkdirSync(path.join(table, 'all_1_1_0'), { recursive: true });
  fs.writeFileSync(path.join(data, 'store', '0a1', 'not-a-table'), '');
  fs.mkdirSync(path.join(data, 'metadata'));
  return { data, tables };
}

/** ext4 (which `stat -f` names ext2/ext3) is the file system whose allocator the flag steers. */
const onExt4 =
  execFileSync('stat', ['-f', '-c', '%T', os.tmpdir()], { encoding: 'utf8' }).trim() === 'ext2/ext3';
const flagsOf = (dir: string) => execFileSync('lsattr', ['-d', dir], { encoding: 'utf8' }).split(' ')[0]!;

describe('ClickHouse part directories', () => {
  it('lists the table directories of store/ and nothing else', () => {
    const { data, tables } = dataDirectory();
    expect(tableDirectories(data).sort()).toEqual(tables.sort());
  });

  it('finds no tables in a data directory without store/ (a server not started yet)', async () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-part-dirs-'));
    made.push(data);
    expect(tableDirectories(data)).toEqual([]);
    expect(await spreadPartDirectories(data)).toBe(0);
  });

  it.skipIf(!onExt4)(
    'marks each table directory with the top-of-hierarchy flag, and only those',
    async () => {
      const { data, tables } = dataDirectory();
      expect(await spreadPartDirectories(data)).toBe(2);
      for (const table of tables) {
        expect(flagsOf(table)).toContain('T');
        expect(flagsOf(path.join(table, 'all_1_1_0'))).not.toContain('T');
      }
      expect(flagsOf(path.join(data, 'store'))).not.toContain('T');
    },
  );
});
