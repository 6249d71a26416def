// The Redis part of a restore. One snapshot into one server goes into the stopped server's empty
// data directory (placeSnapshot). Any other shape — a Redis Cluster, or a backup of a cluster into
// one server — is copied key by key: each snapshot is loaded by a temporary redis-server of its own
// on a spare port, and every key of it goes into the running, empty target with DUMP and RESTORE
// (its TTL kept), which a cluster client sends to the master of the key's slot. Every key is
// copied, whatever its name or prefix.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { pingRedis, redisDirectories, startRedis, stopRedis } from '../local/redis.mjs';
import type { StackSettings } from '../local/settings.mjs';
import { expectNoData, placeSnapshot, type RedisNodeBackup } from './redis-backup.ts';

/** A port nobody listens on now (the kernel's pick). */
function sparePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs `use` against a temporary redis-server that loaded `snapshot` (persistence off: it writes
 * nothing), then stops it and deletes its directory.
 */
export async function withSnapshotServer<T>(
  snapshot: string,
  use: (source: Redis) => Promise<T>,
): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-restore-redis-'));
  fs.copyFileSync(snapshot, path.join(dir, 'dump.rdb'));
  const port = await sparePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--dbfilename', 'dump.rdb'].concat([
      '--appendonly',
      'no',
      '--save',
      '',
      '--daemonize',
      'no',
      '--logfile',
      path.join(dir, 'redis.log'),
    ]),
    { stdio: 'ignore' },
  );
  let exited = false;
  server.once('exit', () => (exited = true));
  try {
    // Loading a large snapshot takes a while (~18 s for 9.4 M keys here): up to 10 min.
    for (const deadline = Date.now() + 10 * 60_000; (await pingRedis(port)) !== 'pong'; await sleep(200)) {
      if (exited || Date.now() > deadline) {
        const log = fs.existsSync(path.join(dir, 'redis.log'))
          ? fs.readFileSync(path.join(dir, 'redis.log'), 'utf8').trim().split('\n').slice(-5).join('\n')
          : '';
        throw new Error(`a temporary redis-server could not load the snapshot ${snapshot}:\n${log}`);
      }
    }
    const source = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1 });
    try {
      return await use(source);
    } finally {
      source.disconnect();
    }
  } finally {
    if (!exited) {
      const stopped = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await stopped;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Keys of every master (a cluster) or of the one server. */
async function keyCount(target: Redis | Cluster): Promise<number> {
  const nodes = target instanceof Cluster ? target.nodes('master') : [target];
  const counts = await Promise.all(nodes.map((node) => node.dbsize()));
  return counts.reduce((sum, n) => sum + n, 0);
}

/** Refuses a target that holds keys: a restore goes into an empty store, never over live data. */
export async function expectEmpty(target: Redis | Cluster): Promise<void> {
  const keys = await keyCount(target);
  if (keys > 0)
    throw new Error(
      `Redis already holds ${keys} keys: restore goes into an empty store (stop the stack and delete its Redis data first)`,
    );
}

/**
 * Copies every key of `source` into `target` with its value and remaining TTL, 1,000 at a time;
 * returns how many were copied. A key that exists in the target already is an error (BUSYKEY).
 */
export async function copyKeys(source: Redis, target: Redis | Cluster): Promise<number> {
  let copied = 0;
  let cursor = '0';
  do {
    const [next, keys] = await source.scanBuffer(cursor, 'COUNT', 1000);
    cursor = String(next);
    if (!keys.length) continue;
    const read = source.pipeline();
    for (const key of keys) read.dumpBuffer(key).pttl(key);
    const replies = (await read.exec()) ?? [];
    await Promise.all(
      keys.map(async (key, i) => {
        const [dumpError, dump] = replies[2 * i]!;
        const [ttlError, ttl] = replies[2 * i + 1]!;
        if (dumpError || ttlError) throw dumpError ?? ttlError;
        if (dump === null || ttl === -2) return; // expired between SCAN and DUMP
        await target.restore(key, Math.max(0, Number(ttl)), dump as Buffer);
        copied++;
      }),
    );
  } while (cursor !== '0');
  return copied;
}

/** A client of the local stack's Redis on `ports` (a cluster client when there are several), ready. */
export async function localTarget(ports: number[]): Promise<Redis | Cluster> {
  if (ports.length === 1) {
    const client = new Redis({ host: '127.0.0.1', port: ports[0]!, lazyConnect: true });
    await client.connect();
    return client;
  }
  const cluster = new Cluster(
    ports.map((port) => ({ host: '127.0.0.1', port })),
    { enableAutoPipelining: true, lazyConnect: true },
  );
  await cluster.connect();
  return cluster;
}

/**
 * Brings Redis back from the backup's snapshots and leaves it running; returns the nodes it started.
 * One snapshot into one server is placed as its data before it starts; anything else (a Redis
 * Cluster, or a cluster's backup into one server) is copied key by key into the started, empty store.
 */
export async function restoreRedis(
  settings: StackSettings,
  snapshots: RedisNodeBackup[],
  backupDir: string,
  say: (message: string) => void,
): Promise<number[]> {
  const nodes = redisDirectories(settings);
  for (const { port } of nodes)
    if ((await pingRedis(port)) !== null)
      throw new Error(`Redis on port ${port} is running: stop the stack first (restore needs it stopped)`);
  if (nodes.length === 1 && snapshots.length === 1) {
    placeSnapshot(path.join(backupDir, snapshots[0]!.path), nodes[0]!.dir);
    const { startedNodes } = await startRedis(settings);
    say(`redis: snapshot of ${snapshots[0]!.node} loaded (${snapshots[0]!.bytes} bytes)`);
    return startedNodes;
  }
  for (const { dir } of nodes) expectNoData(dir);
  const { startedNodes } = await startRedis(settings);
  try {
    const target = await localTarget(nodes.map((node) => node.port));
    try {
      await expectEmpty(target);
      for (const snapshot of snapshots) {
        const t0 = Date.now();
        const keys = await withSnapshotServer(path.join(backupDir, snapshot.path), (source) =>
          copyKeys(source, target),
        );
        say(`redis: ${keys} keys of the snapshot of ${snapshot.node} copied in ${Date.now() - t0} ms`);
      }
    } finally {
      target.disconnect();
    }
  } catch (error) {
    await stopRedis(settings, startedNodes);
    throw error;
  }
  return startedNodes;
}
