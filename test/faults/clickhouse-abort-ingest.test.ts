// A warehouse that dies under the stream's inserts costs no accepted listing: clickhouse-local is
// aborted (SIGABRT of the server process, which the launcher restarts) again and again while batches
// of 100 listings are posted every 0.3 s and analytics are asked. Then every accepted listing is
// stored exactly once, none is quarantined, every batch completes, and no analytics answer was a
// 500 (a dying warehouse is a 503, retriable).
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { pidFile as stackPidFile } from '../../infra/local/settings.mjs';
import { api, batchCompleted, createTestKey, env, eventually, sampleListing } from '../support/api.ts';
import { rows } from '../support/stream.ts';
import { expectExactlyOnce } from '../support/fault-stream.ts';
import { stackSettings as settings } from '../support/fault-stack-settings.ts';

const ABORTS = 3;
const launcherLog = path.join(settings.logDir, 'clickhouse.log');

/** The clickhouse-local process the launcher supervises (its only child). */
function serverProcess(): number {
  const launcher = Number(fs.readFileSync(stackPidFile(settings, 'clickhouse', 1), 'utf8'));
  return Number(
    fs.readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim().split(/\s+/)[0],
  );
}

/** Aborts the server and waits until the launcher has started it again and it answers. */
async function abortAndWaitForRestart(): Promise<void> {
  const logSize = fs.statSync(launcherLog).size;
  process.kill(serverProcess(), 'SIGABRT');
  await eventually(
    async () => {
      if (!/starting it again/.test(fs.readFileSync(launcherLog, 'utf8').slice(logSize))) return undefined;
      try {
        const [row] = await rows<{ one: number }>('SELECT 1 AS one');
        return row?.one === 1 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    60_000,
    'the aborted server to answer again',
  );
}

describe('ClickHouse aborted during inserts (fault)', () => {
  it('security: repeated aborts under ingest: every accepted listing stored once, none quarantined, every batch completed, no analytics 500', async () => {
    expect(env.CLICKHOUSE_URL).toBe(`http://127.0.0.1:${settings.clickhouse.httpPort}`);
    const { key, account_id } = await createTestKey({ tier: 'enterprise', rateLimit: 100_000 });
    const started = new Date(Date.now() - 1_000).toISOString().slice(0, 19).replace('T', ' ');

    const accepted: string[] = [];
    const batches: string[] = [];
    const refusedPosts: number[] = [];
    let posting = true;
    const poster = (async () => {
      while (posting) {
        const listings = Array.from({ length: 100 }, () => sampleListing());
        const response = await api('POST', '/api/v1/listings/bulk', { key, body: { listings } });
        if (response.status === 201) {
          batches.push(response.body.batch_id as string);
          for (const r of response.body.results) if (r.success) accepted.push(r.listing_id as string);
        } else refusedPosts.push(response.status);
        await sleep(300);
      }
    })();

    // Analytics asked meanwhile by three callers, each answer a cache miss (another period or city).
    const analyticsAnswers: { status: number; body: unknown }[] = [];
    let asking = true;
    const ask = async (caller: number) => {
      for (let i = caller; asking; i += 3) {
        const year = 2000 + (i % 25);
        const city = ['dar_es_salaam', 'arusha', 'dodoma', 'mwanza'][i % 4];
        const response = await api(
          'GET',
          `/api/v1/analytics/pricing?city=${city}&type=apartment&period=${year}-Q${(i % 4) + 1}`,
          { key },
        );
        analyticsAnswers.push({ status: response.status, body: response.body });
      }
    };
    const asker = Promise.all([0, 1, 2].map(ask));

    await eventually(async () => (accepted.length >= 500 ? true : undefined), 60_000, '500 accepted');
    for (let i = 0; i < ABORTS; i++) {
      await abortAndWaitForRestart();
      await sleep(2_000); // inserts flow again before the next abort
    }
    posting = false;
    asking = false;
    await Promise.all([poster, asker]);

    expect(refusedPosts, 'bulk posts refused (ingest does not depend on ClickHouse)').toEqual([]);
    expect(accepted.length).toBeGreaterThanOrEqual(500);
    await expectExactlyOnce(accepted, 180_000);
    const [quarantined] = await rows<{ c: string }>(
      `SELECT count() AS c FROM quarantine
       WHERE quarantined_at >= {started:DateTime} AND position(payload, {account:String}) > 0`,
      { started, account: account_id },
    );
    expect(Number(quarantined!.c), 'listings of the account quarantined').toBe(0);
    for (const batchId of batches) await batchCompleted(key, batchId, 60_000);
    const byStatus = new Map<number, number>();
    for (const a of analyticsAnswers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
    console.log('analytics answers during the aborts, by status:', Object.fromEntries(byStatus));
    expect(
      analyticsAnswers.filter((a) => a.status !== 200 && a.status !== 503),
      'analytics answers other than 200 or 503',
    ).toEqual([]);
  }, 300_000);
});
