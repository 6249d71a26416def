// The warehouse answers data engineers over the native protocol too (CONTRACT, "ClickHouse"): the
// read-only `analyst` logs in over TCP, and the listeners are loopback only. Only for the local
// stack. A failed native login would abort clickhouse-local 26.x; the launcher's native front
// (infra/local/clickhouse/native-front.c) answers it instead, so failed logins stop nothing.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { pidFile, readSettings } from '../../infra/local/settings.mjs';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { env, testClickHouse } from '../support/api.ts';
import { nativeHello } from '../support/clickhouse-native.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const settings = readSettings({ ...process.env, CLICKHOUSE_URL: '' }, { profile: 'test' });
const local = env.CLICKHOUSE_URL === `http://127.0.0.1:${settings.clickhouse.httpPort}`;
const password = process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst';

/** The pids of the launcher's children (the clickhouse-local process it supervises). */
function serverPids(): string {
  const launcher = fs.readFileSync(pidFile(settings, 'clickhouse', 1), 'utf8').trim();
  return fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim();
}

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

  it('resilience: 20 failed native logins stop nothing: inserts and queries run on with 0 errors, and the right password still logs in', async () => {
    // A database of its own: the service database's tables are checked against the README meanwhile.
    const probeDatabase = 'native_login_probe';
    const admin = testClickHouse();
    await admin.command({
      query: 'CREATE DATABASE IF NOT EXISTS {db:Identifier}',
      query_params: { db: probeDatabase },
    });
    const client = createClickHouse({
      url: env.CLICKHOUSE_URL,
      username: env.CLICKHOUSE_USER,
      password: env.CLICKHOUSE_PASSWORD,
      database: probeDatabase,
    });
    const table = `native_login_probe_${process.pid}`;
    await client.command({
      query: 'CREATE TABLE {table:Identifier} (n UInt32) ENGINE = MergeTree ORDER BY n',
      query_params: { table },
    });
    const server = serverPids();
    let running = true;
    const errors: string[] = [];
    let inserts = 0;
    let queries = 0;
    const inserting = (async () => {
      for (let n = 0; running; n++) {
        try {
          await client.insert({ table, values: [{ n }], format: 'JSONEachRow' });
          inserts++;
        } catch (error) {
          errors.push(`insert: ${String(error)}`);
        }
      }
    })();
    const querying = (async () => {
      while (running) {
        try {
          await (
            await client.query({ query: 'SELECT count() FROM {table:Identifier}', query_params: { table } })
          ).json();
          queries++;
        } catch (error) {
          errors.push(`query: ${String(error)}`);
        }
      }
    })();
    const refused = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      const user = attempt % 4 === 3 ? 'nobody' : 'analyst';
      refused.push(
        await nativeHello(settings.clickhouse.tcpPort, user, `wrong-${attempt}`, env.CLICKHOUSE_DATABASE),
      );
      await sleep(100);
    }
    // An unknown database and bytes that are not a Hello are refused the same way.
    refused.push(await nativeHello(settings.clickhouse.tcpPort, 'analyst', password, 'no_such_database'));
    running = false;
    await Promise.all([inserting, querying]);

    console.log(
      `20 failed native logins: ${inserts} inserts and ${queries} queries meanwhile, ${errors.length} errors`,
    );
    for (const answer of refused.slice(0, 20)) expect(answer).toMatchObject({ ok: false, code: 516 });
    expect(refused[20]).toMatchObject({ ok: false, code: 81 });
    expect(errors).toEqual([]);
    expect(inserts).toBeGreaterThan(0);
    expect(queries).toBeGreaterThan(0);
    const stored = await (
      await client.query({ query: 'SELECT count() AS n FROM {table:Identifier}', query_params: { table } })
    ).json<{ n: string }>();
    expect(Number(stored.data[0]!.n)).toBe(inserts);
    expect(serverPids()).toBe(server); // the same clickhouse-local process: nothing restarted
    expect(
      await nativeHello(settings.clickhouse.tcpPort, 'analyst', password, env.CLICKHOUSE_DATABASE),
    ).toMatchObject({ ok: true, server: 'ClickHouse' });
    await client.command({ query: 'DROP TABLE {table:Identifier} SYNC', query_params: { table } });
    await client.close();
  }, 120_000);
});
