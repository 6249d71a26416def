// `npm run backup` on the cluster topology: every ClickHouse shard and every Redis master (with its
// hash slots) in the backup, the committed offsets of the groups on the cluster's topics.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/local/settings.mjs';
import { api, batchCompleted, createTestKey, sampleListing } from '../support/api.ts';
import { expectClusterStack, settings } from '../support/cluster.ts';

const run = promisify(execFile);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-cluster-backup-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('backup (cluster topology)', () => {
  it('happy: backs up every shard and every Redis master', async () => {
    expectClusterStack();
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: Array.from({ length: 20 }, () => sampleListing()) },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await batchCompleted(key, created.body.batch_id, 60_000);

    const { stdout } = await run('npm', ['run', '--silent', 'backup', '--', path.join(dir, 'b')], {
      cwd: repoRoot,
      env: { ...process.env, RLS_PORT_BASE: String(settings.portBase) },
      timeout: 180_000,
    });
    const manifest = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(manifest.topology).toBe('cluster');
    expect(manifest.clickhouse.shards.map((s: { n: number }) => s.n)).toEqual([1, 2]);
    expect(manifest.clickhouse.shards.every((s: { tables: number }) => s.tables > 0)).toBe(true);
    expect(manifest.redis.nodes).toHaveLength(3);
    const slots = manifest.redis.nodes.map((n: { slots: string }) => n.slots).join(' ');
    expect(slots).toMatch(/^0-|\s0-/); // every slot range is someone's: 0 … 16383 among the masters
    expect(slots).toContain('16383');
    expect(Object.keys(manifest.offsets).length).toBeGreaterThan(0);
    for (const file of manifest.redis.nodes)
      expect(fs.statSync(path.join(dir, 'b', file.path)).size).toBe(file.bytes);
  }, 300_000);
});
