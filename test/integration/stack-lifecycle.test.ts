// The local stack's own start-up, on a scratch state directory and ports beside the test stack:
// Kafka storage formats whatever cluster id the state holds (ids of older state directories may
// begin with `-`), and a start that fails stops every node it had started.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatNode } from '../../infra/local/kafka.mjs';
import { isAlive, readPid } from '../../infra/local/processes.mjs';
import { pidFile, readSettings } from '../../infra/local/settings.mjs';
import { startStack } from '../../infra/local/stack.mjs';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'rls-stack-'));
// Ports of a second instance: the test stack's base + 250 (no component of either overlaps).
const base = Number(process.env.RLS_PORT_BASE || 28000) + 250;
const scratchSettings = (name: string, extra: Record<string, string> = {}) =>
  readSettings(
    {
      ...process.env,
      KAFKA_BROKERS: '',
      CLICKHOUSE_URL: '',
      REDIS_URL: '',
      KAFKA_PORT: '',
      KAFKA_CONTROLLER_PORT: '',
      REDIS_PORT: '',
      CLICKHOUSE_HTTP_PORT: '',
      CLICKHOUSE_TCP_PORT: '',
      RLS_TOPOLOGY: 'single',
      RLS_PORT_BASE: String(base),
      RLS_STATE_DIR: path.join(scratch, name),
      ...extra,
    },
    { profile: 'test' },
  );

afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

describe('local stack start-up', () => {
  it('formats Kafka storage with a cluster id that begins with "-"', async () => {
    const settings = scratchSettings('format');
    for (const clusterId of ['-DOJNvtqTPukMLDX8l0IqQ', '--OJNvtqTPukMLDX8l0IqQ']) {
      fs.rmSync(settings.stateDir, { recursive: true, force: true });
      await formatNode(settings, settings.kafka.nodes[0]!, clusterId);
      const meta = fs.readFileSync(path.join(settings.stateDir, 'kafka', 'data', 'meta.properties'), 'utf8');
      expect(meta).toContain(`cluster.id=${clusterId}\n`);
    }
  }, 60_000);

  it('a start that fails stops the nodes it had started (Redis here), freeing their ports', async () => {
    const settings = scratchSettings('failed', { CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? '' });
    // Something else holds the Kafka port: Kafka refuses to start, after Redis came up.
    const squatter = net.createServer().listen(settings.kafka.port, '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    try {
      await expect(startStack(settings, { ...process.env, RLS_NAMESPACE: '' })).rejects.toThrow(
        new RegExp(`port ${settings.kafka.port} is already in use`),
      );
    } finally {
      squatter.close();
    }
    expect(fs.existsSync(pidFile(settings, 'redis', 1)), 'redis pid file').toBe(false);
    const redisPid = Number(
      fs.readFileSync(path.join(settings.logDir, 'redis.log'), 'utf8').match(/pid=(\d+)/)?.[1],
    );
    expect(isAlive(redisPid) || readPid(pidFile(settings, 'redis', 1)) > 0).toBe(false);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer().once('error', () => resolve(false));
      probe.listen(settings.redis.port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    expect(free, `Redis port ${settings.redis.port} free again`).toBe(true);
  }, 120_000);
});
