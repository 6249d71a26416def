// `npm run backup` and `npm run restore` as the contract fixes them (CONTRACT.md, "Backups and
// alerts"): the manifest as the last stdout line, exit 0; non-zero with the reason on stderr. The
// whole backup → wipe → restore cycle is the restore drill (test/faults/restore-drill.test.ts).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { migrate, readMigrations } from '../../infra/clickhouse/migrate.ts';
import { readSettings, repoRoot } from '../../infra/local/settings.mjs';
import { env, testClickHouse } from '../support/api.ts';

const run = promisify(execFile);
const settings = readSettings(process.env, { profile: 'test' });
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-backup-cmd-'));

async function npmRun(script: string, args: string[], extra: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', script, '--', ...args], {
      cwd: repoRoot,
      env: { ...process.env, RLS_PORT_BASE: String(settings.portBase), ...extra },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('npm run backup', () => {
  it('happy: backs up a database of the running stack; the last stdout line is the manifest', async () => {
    const database = `rls_backup_${randomUUID().slice(0, 8)}`;
    await migrate({ url: env.CLICKHOUSE_URL, username: 'default', password: '', database });
    try {
      const dir = path.join(scratch, 'happy');
      const result = await npmRun('backup', [dir], {
        CLICKHOUSE_DATABASE: database,
        KAFKA_TOPIC_PREFIX: `${database}.`, // no topics, no groups: quick
      });
      expect(result.code, result.stderr).toBe(0);
      const manifest = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
      expect(manifest).toMatchObject({ database, offsets: {}, topology: 'single' });
      expect(Date.parse(manifest.created_at)).toBeGreaterThan(Date.now() - 120_000);
      expect(manifest.migration.version).toBe(readMigrations().at(-1)!.version);
      expect(manifest.bytes).toBeGreaterThan(0);
      expect(manifest.clickhouse.shards[0].tables).toBeGreaterThan(10);
      expect(fs.existsSync(path.join(dir, manifest.clickhouse.shards[0].path))).toBe(true);
      expect(fs.statSync(path.join(dir, manifest.redis.nodes[0].path)).size).toBe(
        manifest.redis.nodes[0].bytes,
      );
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toEqual(manifest);

      const again = await npmRun('backup', [dir], { CLICKHOUSE_DATABASE: database });
      expect(again.code).not.toBe(0);
      expect(again.stderr).toMatch(/already holds a backup/);
      // A restore goes into a stopped stack only (the cycle itself: the restore drill).
      const running = await npmRun('restore', [dir]);
      expect(running.code).not.toBe(0);
      expect(running.stderr).toMatch(/Redis on port \d+ is running: stop the stack first/);
    } finally {
      await testClickHouse().command({
        query: 'DROP DATABASE IF EXISTS {db:Identifier} SYNC',
        query_params: { db: database },
      });
    }
  }, 120_000);

  it('error: no directory, or a ClickHouse that is not the local stack, fails with the reason', async () => {
    const usage = await npmRun('backup', []);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toMatch(/usage: npm run backup -- \[--base <previous backup>\] <dir>/);
    const remote = await npmRun('backup', [path.join(scratch, 'remote')], {
      CLICKHOUSE_URL: 'http://10.0.0.1:8123',
    });
    expect(remote.code).not.toBe(0);
    expect(remote.stderr).toMatch(/not a server of this machine's local stack.*S3/);
  });
});

describe('npm run restore', () => {
  it('error: refuses a directory without a backup', async () => {
    const empty = await npmRun('restore', [path.join(scratch, 'nothing-here')]);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toMatch(/holds no backup/);
  });
});
