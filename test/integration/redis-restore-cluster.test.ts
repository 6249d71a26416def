// `npm run restore`'s Redis part into a Redis Cluster: a snapshot of a single server (taken as
// `npm run backup` takes it) is copied key by key into a fresh 3-master cluster of the local stack's
// making (a scratch state directory, ports beside the test stack's), every key with its value and
// TTL, whatever its name; a second restore over that data is refused.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshotNode } from '../../infra/backup/redis-backup.ts';
import { restoreRedis } from '../../infra/backup/redis-restore.ts';
import { pingRedis, stopRedis } from '../../infra/local/redis.mjs';
import { readSettings } from '../../infra/local/settings.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-redis-restore-'));
// The cluster's ports: the test stack's base - 7000 (no component of the test stacks is there). A
// node's cluster bus listens on its port + 10000, which must stay below the kernel's ephemeral
// ports (from 32768), where a client socket of the moment may hold it: from base 28000, nodes on
// 21379-21384, buses on 31379-31384.
const base = Number(process.env.RLS_PORT_BASE || 28000) - 7000;
const clusterSettings = readSettings(
  { RLS_TOPOLOGY: 'cluster', RLS_PORT_BASE: String(base), RLS_STATE_DIR: path.join(scratch, 'state') },
  { profile: 'test' },
);
const sourcePort = base + 370;
const source = spawn(
  'redis-server',
  ['--port', String(sourcePort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
  { cwd: scratch, stdio: 'ignore' },
);

afterAll(async () => {
  source.kill('SIGTERM');
  await stopRedis(clusterSettings);
  fs.rmSync(scratch, { recursive: true, force: true });
});

describe('restore of Redis into a Redis Cluster', () => {
  it('happy: copies every key of the snapshot into the cluster with its TTL; refuses a second restore', async () => {
    for (let i = 0; (await pingRedis(sourcePort)) !== 'pong'; i++) {
      expect(i, 'the source redis-server starts').toBeLessThan(100);
      await sleep(100);
    }
    const writer = new Redis({ host: '127.0.0.1', port: sourcePort });
    // Keys of any name and type, spread over the slots of every master, some with a TTL.
    const prefix = `anything${randomUUID().slice(0, 8)}:`;
    const keys = Array.from({ length: 300 }, (_, i) => `${prefix}${i}`);
    for (const [i, key] of keys.entries()) {
      if (i % 4 === 0) await writer.set(key, `v${i}`, 'EX', 3600);
      else if (i % 4 === 1) await writer.hset(key, { a: String(i), b: 'x' });
      else if (i % 4 === 2) await writer.zadd(key, i, 'm');
      else await writer.rpush(key, 'p', 'q');
    }
    await writer.set('{tagged}:other-prefix', 'kept', 'PX', 3_600_000);
    writer.disconnect();
    const backupDir = path.join(scratch, 'backup');
    const snapshot = await snapshotNode(
      `redis://127.0.0.1:${sourcePort}`,
      `127.0.0.1:${sourcePort}`,
      backupDir,
      'node-1',
    );

    const said: string[] = [];
    await restoreRedis(clusterSettings, [snapshot], backupDir, (message) => said.push(message));
    expect(said.join('\n')).toContain(
      `redis: ${keys.length + 1} keys of the snapshot of 127.0.0.1:${sourcePort}`,
    );

    const cluster = new Cluster([{ host: '127.0.0.1', port: clusterSettings.redis.ports[0]! }]);
    try {
      for (const [i, key] of keys.entries()) {
        if (i % 4 === 0) {
          expect(await cluster.get(key)).toBe(`v${i}`);
          expect(await cluster.ttl(key)).toBeGreaterThan(3500);
        } else if (i % 4 === 1) expect(await cluster.hgetall(key)).toEqual({ a: String(i), b: 'x' });
        else if (i % 4 === 2) expect(await cluster.zscore(key, 'm')).toBe(String(i));
        else expect(await cluster.lrange(key, 0, -1)).toEqual(['p', 'q']);
        if (i % 4 !== 0) expect(await cluster.ttl(key), `${key} has no TTL`).toBe(-1);
      }
      expect(await cluster.get('{tagged}:other-prefix')).toBe('kept');
      const perMaster = await Promise.all(cluster.nodes('master').map((node) => node.dbsize()));
      expect(perMaster.reduce((sum, n) => sum + n, 0)).toBe(keys.length + 1);
      expect(perMaster.filter((n) => n > 0).length, 'keys on every master').toBe(3);
    } finally {
      cluster.disconnect();
    }

    // Over data it refuses: a restore goes into an empty store.
    await stopRedis(clusterSettings);
    await expect(restoreRedis(clusterSettings, [snapshot], backupDir, () => undefined)).rejects.toThrow(
      /not empty \(dump\.rdb|not empty \(appendonlydir/,
    );
  }, 120_000);
});
