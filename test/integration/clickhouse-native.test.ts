// The warehouse answers data engineers over the native protocol too (CONTRACT, "ClickHouse"): the
// read-only `analyst` logs in over TCP, and the listeners are loopback only. Only for the local
// stack. A wrong password over TCP makes clickhouse-local 26.7 abort (the launcher restarts it), so
// that case is a fault test (test/faults/clickhouse-kill.test.ts), not run beside the main suite.
import net from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../infra/local/settings.mjs';
import { env } from '../support/api.ts';
import { nativeHello } from '../support/clickhouse-native.ts';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const local = env.CLICKHOUSE_URL === `http://127.0.0.1:${settings.clickhouse.httpPort}`;
const password = process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst';

describe.runIf(local)('ClickHouse native TCP listener', () => {
  it('happy: analyst logs in over TCP and the server is ClickHouse 26.x', async () => {
    const hello = await nativeHello(
      settings.clickhouse.tcpPort,
      'analyst',
      password,
      env.CLICKHOUSE_DATABASE,
    );
    expect(hello).toMatchObject({ ok: true, server: 'ClickHouse' });
    expect(hello.ok && hello.version).toMatch(/^26\./);
  });

  it("security: the listeners are bound to loopback only (refused on the machine's other addresses)", async () => {
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;
    if (!external) return; // a machine with loopback only has nothing else to refuse on
    for (const port of [settings.clickhouse.httpPort, settings.clickhouse.tcpPort]) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = net.connect({ host: external, port });
        socket.setTimeout(2_000, () => (socket.destroy(), resolve('timeout')));
        socket.on('connect', () => (socket.destroy(), resolve('connected')));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      });
      expect(outcome, `${external}:${port}`).toBe('ECONNREFUSED');
    }
  });
});
