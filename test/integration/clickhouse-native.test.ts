// The warehouse answers data engineers over the native protocol too (CONTRACT, "ClickHouse"): the
// read-only `analyst` logs in over TCP, and the listeners are loopback only. Only for the local
// stack. A failed native login would abort clickhouse-local 26.x; the launcher's native front
// (infra/local/clickhouse/native-front.c) answers it instead, so failed logins stop nothing, and it
// limits what a client may do before it has logged in.
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { pidFile, readSettings } from '../../infra/local/settings.mjs';
import { createClickHouse } from '../../common/clients/clickhouse.ts';
import { env, testClickHouse } from '../support/api.ts';
import { helloBytes, nativeAnswer, nativeHello } from '../support/clickhouse-native.ts';
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
    // A database of its own: the service database's tables are checked against docs/warehouse.md meanwhile.
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

  // HTTP header values lose leading and trailing whitespace, a native login does not: such a
  // password passed the front's HTTP check, failed the native login and aborted the server.
  it('security: a user or password that begins or ends with whitespace or holds a control character is refused by the front, and the server keeps running', async () => {
    const server = serverPids();
    const port = settings.clickhouse.tcpPort;
    // The attack's own bytes: Hello from client "x" 26.7, revision 54488, user default, password " ".
    const attack = Buffer.from('0001781a07d8a903000764656661756c740120', 'hex');
    const answers = [
      await nativeAnswer(port, attack),
      await nativeHello(port, 'analyst', `${password} `, env.CLICKHOUSE_DATABASE),
      await nativeHello(port, 'analyst', ` ${password}`, env.CLICKHOUSE_DATABASE),
      await nativeHello(port, 'analyst ', password, env.CLICKHOUSE_DATABASE),
      await nativeHello(port, 'default', '\t'),
      await nativeHello(port, 'analyst', `${password}\u0001`, env.CLICKHOUSE_DATABASE),
    ];
    for (const answer of answers)
      expect(answer).toMatchObject({
        ok: false,
        code: 516,
        message: expect.stringMatching(/must not begin or end with whitespace or contain control characters/),
      });
    expect(serverPids()).toBe(server); // nothing was forwarded, so nothing aborted
    expect(await nativeHello(port, 'analyst', password, env.CLICKHOUSE_DATABASE)).toMatchObject({ ok: true });
  }, 60_000);

  it('security: a Hello must arrive within 10 s of the connect (one byte every 2 s is cut off)', async () => {
    const hello = helloBytes('analyst', password.padEnd(200, 'x'));
    const started = Date.now();
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port: settings.clickhouse.tcpPort });
      let sent = 0;
      const timer = setInterval(() => {
        if (sent < hello.length) socket.write(hello.subarray(sent, ++sent));
      }, 2_000);
      socket.on('data', () => undefined); // the front's 101 answer, then its close
      socket.on('error', () => undefined);
      socket.on('close', () => (clearInterval(timer), resolve(Date.now() - started)));
      setTimeout(
        () => (clearInterval(timer), socket.destroy(), reject(new Error('still open after 20 s'))),
        20_000,
      );
    });
    expect(closedAfter).toBeGreaterThanOrEqual(9_500);
    expect(closedAfter).toBeLessThan(13_000);
  }, 30_000);

  it('security: at most 64 connections wait to log in; one more is refused at once, and a login works again once they close', async () => {
    const port = settings.clickhouse.tcpPort;
    const idle = await Promise.all(
      Array.from(
        { length: 64 },
        () =>
          new Promise<net.Socket>((resolve, reject) => {
            const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(socket));
            socket.on('error', reject);
          }),
      ),
    );
    try {
      await sleep(300); // the front has accepted them all
      const started = Date.now();
      const refused = await nativeHello(port, 'analyst', password, env.CLICKHOUSE_DATABASE);
      expect(refused).toMatchObject({
        ok: false,
        code: 202,
        message: expect.stringMatching(/too many connections/),
      });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      for (const socket of idle) socket.destroy();
    }
    await sleep(300);
    expect(await nativeHello(port, 'analyst', password, env.CLICKHOUSE_DATABASE)).toMatchObject({ ok: true });
  }, 30_000);

  // A reviewer tried 69,440 wrong passwords in 30 s. Failed logins are answered ever more slowly
  // (up to 2 s each) while each holds one of the 64 waiting slots: at most ~32 answers a second.
  it('security: 32 clients guessing passwords for 6 s get at most a few hundred answers', async () => {
    const port = settings.clickhouse.tcpPort;
    const until = Date.now() + 6_000;
    let answered = 0;
    let unexpected = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, client) => {
        for (let guess = 0; Date.now() < until; guess++) {
          const answer = await nativeHello(port, 'analyst', `guess-${client}-${guess}`).catch(
            () => undefined,
          );
          if (answer && !answer.ok && answer.code === 516) answered++;
          else unexpected++;
        }
      }),
    );
    console.log(`6 s of guessing by 32 clients: ${answered} answers`);
    expect(unexpected).toBe(0);
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(32 * 4 + 32); // ≤ 2 s per answer once the delay has grown
    expect(await nativeHello(port, 'analyst', password, env.CLICKHOUSE_DATABASE)).toMatchObject({ ok: true });
  }, 60_000);
});
