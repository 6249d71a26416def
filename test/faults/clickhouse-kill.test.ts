// The local ClickHouse (26.x from npm, run by infra/local/clickhouse/launcher.c): SIGKILL in the
// middle of a stream of inserts loses no acknowledged row, a clean stop is clickhouse-local's own
// shutdown (exit 0, logged), and the stack's services carry on after the restart.
import fs from 'node:fs';
import path from 'node:path';
import { createClient } from '@clickhouse/client';
import { describe, expect, it } from 'vitest';
import { startClickHouse, stopClickHouse } from '../../infra/local/clickhouse.mjs';
import { pidFile as stackPidFile } from '../../infra/local/settings.mjs';
import { api, createTestKey, env, eventually, sampleListing } from '../support/api.ts';
import { nativeHello } from '../support/clickhouse-native.ts';
import { stackSettings as settings } from '../support/fault-stack-settings.ts';

const pidFile = stackPidFile(settings, 'clickhouse', 1);
const launcherLog = path.join(settings.logDir, 'clickhouse.log');
// A constant of this file, and the only name interpolated into SQL text here (values are parameters).
const probeDatabase = 'fault_probe';

function server() {
  return createClient({ url: env.CLICKHOUSE_URL, request_timeout: 5_000, log: { level: 127 as never } });
}

async function scalar(query: string, params: Record<string, unknown> = {}): Promise<string> {
  const client = server();
  try {
    const result = await client.query({ query, query_params: params, format: 'JSONEachRow' });
    const rows = await result.json<Record<string, string>>();
    return String(Object.values(rows[0] ?? {})[0]);
  } finally {
    await client.close();
  }
}

describe('local ClickHouse server (fault)', () => {
  it('is a 26.x server that keeps every acknowledged insert through SIGKILL, and stops cleanly', async () => {
    expect(env.CLICKHOUSE_URL).toBe(`http://127.0.0.1:${settings.clickhouse.httpPort}`);
    expect(await scalar('SELECT version()')).toMatch(/^26\./);

    const client = server();
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${probeDatabase}` });
    await client.command({ query: `DROP TABLE IF EXISTS ${probeDatabase}.acknowledged` });
    await client.command({
      query: `CREATE TABLE ${probeDatabase}.acknowledged (n UInt32, at DateTime64(3)) ENGINE = MergeTree ORDER BY n`,
    });
    // Inserts one at a time and counts the acknowledged ones until the server dies under them.
    let acknowledged = 0;
    let attempted = 0;
    let killed = false;
    const inserting = (async () => {
      for (let n = 0; n < 100_000; n++) {
        attempted++;
        try {
          await client.insert({
            table: `${probeDatabase}.acknowledged`,
            values: [{ n, at: Date.now() }],
            format: 'JSONEachRow',
          });
          acknowledged++;
        } catch {
          if (killed) return;
          throw new Error(`insert ${n} failed before the kill`);
        }
      }
    })();
    await eventually(async () => (acknowledged >= 50 ? true : undefined), 30_000, '50 inserts');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    killed = true;
    process.kill(pid, 'SIGKILL');
    await inserting;
    await client.close().catch(() => undefined);
    await eventually(
      async () => {
        try {
          process.kill(pid, 0);
          return undefined;
        } catch {
          return true;
        }
      },
      10_000,
      'the killed server to be gone',
    );

    await startClickHouse(settings);
    const stored = Number(await scalar(`SELECT count() FROM ${probeDatabase}.acknowledged`));
    // Every acknowledged insert is there; at most the one in flight at the kill may be too.
    expect(stored).toBeGreaterThanOrEqual(acknowledged);
    expect(stored).toBeLessThanOrEqual(attempted);

    // The running services reconnect by themselves: a listing created now is stored.
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.results[0].listing_id as string;
    await eventually(
      async () =>
        (await scalar('SELECT count() FROM {db:Identifier}.listings WHERE listing_id = {id:UUID}', {
          db: env.CLICKHOUSE_DATABASE,
          id,
        })) === '1'
          ? true
          : undefined,
      60_000,
      'a listing stored after the restart',
    );

    // A clean stop is clickhouse-local's own shutdown; the data is there after the next start.
    const logSize = fs.statSync(launcherLog).size;
    await stopClickHouse(settings);
    const tail = fs.readFileSync(launcherLog, 'utf8').slice(logSize);
    expect(tail).toContain('launcher: clickhouse-local stopped cleanly');
    await startClickHouse(settings);
    expect(Number(await scalar(`SELECT count() FROM ${probeDatabase}.acknowledged`))).toBe(stored);
    const cleanup = server();
    await cleanup.command({ query: `DROP DATABASE ${probeDatabase} SYNC` });
    await cleanup.close();
  }, 240_000);

  it('an abort of clickhouse-local (SIGABRT of the server process) is restarted by the launcher with its data', async () => {
    const launcher = Number(fs.readFileSync(pidFile, 'utf8'));
    const child = Number(fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim());
    expect(child).toBeGreaterThan(0);
    const before = await scalar('SELECT count() FROM {db:Identifier}.listings', {
      db: env.CLICKHOUSE_DATABASE,
    });
    const logSize = fs.statSync(launcherLog).size;
    const restartLine = /launcher: clickhouse-local died from signal 6; starting it again/;
    process.kill(child, 'SIGABRT');
    // The aborting server may still answer for a moment: wait for the launcher's restart first.
    await eventually(
      async () => {
        if (!restartLine.test(fs.readFileSync(launcherLog, 'utf8').slice(logSize))) return undefined;
        try {
          return (await scalar('SELECT 1')) === '1' ? true : undefined;
        } catch {
          return undefined;
        }
      },
      30_000,
      'the server to answer again',
    );
    // Same launcher process (it supervised the restart), same data, and a working login after it.
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).toBe(launcher);
    process.kill(launcher, 0);
    expect(
      Number(await scalar('SELECT count() FROM {db:Identifier}.listings', { db: env.CLICKHOUSE_DATABASE })),
    ).toBeGreaterThanOrEqual(Number(before));
    const again = await nativeHello(
      settings.clickhouse.tcpPort,
      'analyst',
      process.env.CLICKHOUSE_ANALYST_PASSWORD || 'analyst',
    );
    expect(again).toMatchObject({ ok: true });
  }, 120_000);

  // It used to give up after 5 deaths within a minute, leaving the warehouse down until a restart
  // by hand: now it waits longer after each one (capped) and never stops trying.
  it('the launcher never gives up: 6 aborts within a minute are each restarted, after delays that grow', async () => {
    const launcher = Number(fs.readFileSync(pidFile, 'utf8'));
    const logSize = fs.statSync(launcherLog).size;
    const childOf = () =>
      Number(fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim());
    for (let abort = 1; abort <= 6; abort++) {
      const child = childOf();
      process.kill(child, 'SIGABRT');
      await eventually(
        async () => {
          const next = fs.existsSync(`/proc/${launcher}`) ? childOf() : 0;
          if (!next || next === child) return undefined;
          try {
            return (await scalar('SELECT 1')) === '1' ? true : undefined;
          } catch {
            return undefined;
          }
        },
        60_000,
        `the server to answer after abort ${abort}`,
      );
    }
    const delays = [
      ...fs
        .readFileSync(launcherLog, 'utf8')
        .slice(logSize)
        .matchAll(/died from signal 6; starting it again in (\d+) ms/g),
    ].map((match) => Number(match[1]));
    expect(delays).toHaveLength(6);
    for (let i = 1; i < delays.length; i++) expect(delays[i]).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.at(-1)).toBeGreaterThan(delays[0]!);
    expect(Math.max(...delays)).toBeLessThanOrEqual(10_000);
    expect(fs.readFileSync(launcherLog, 'utf8').slice(logSize)).not.toMatch(/giving up/);
    process.kill(launcher, 0); // the same launcher, still supervising
    expect(Number(fs.readFileSync(pidFile, 'utf8'))).toBe(launcher);
  }, 240_000);
});
