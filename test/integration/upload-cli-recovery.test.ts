// The uploader CLI recovering as integrators need it to (CONTRACT.md "Uploader CLI"): killed mid-way
// and resumed, rate limited (429), and answered 503 or not at all — never creating a listing twice.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { bucketsOf, usageKeys } from '../../common/usage/keys.ts';
import { api, baseUrl, createTestKey, env, testClickHouse, testRedis } from '../support/api.ts';
import { createdTotal, reportOf, summaryOf, upload, writeBigCsv } from '../support/upload-cli.ts';
import { setTimeout as sleep } from 'node:timers/promises';

describe('upload CLI recovery (happy)', () => {
  it('resumes after being killed mid-way: no listing created twice, totals of the whole file', async () => {
    const { key, account_id } = await createTestKey({ tier: 'enterprise', rateLimit: 10_000 });
    const { dir, file, data } = writeBigCsv('big', `k${Date.now()}`, 700);
    const stateDir = join(dir, 'state');
    const report = join(dir, 'big.report.csv');

    // Test hook: SIGKILL once 2 batches are recorded and the 3rd is answered but not recorded
    // (with 4 in flight, later batches may be created on the server too).
    const killed = await upload([file], {
      RLS_API_KEY: key,
      RLS_UPLOAD_STATE_DIR: stateDir,
      RLS_UPLOAD_KILL_AFTER_BATCHES: '2',
    });
    expect(killed.signal ?? killed.code).not.toBe(0);
    expect(killed.stdout).toBe('');
    const createdBeforeResume = await createdTotal(key);
    expect(createdBeforeResume).toBeGreaterThanOrEqual(3 * 90);

    const resumed = await upload([file, '--wait'], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('resuming: batches 1–2');
    expect(summaryOf(resumed)).toEqual({
      rows: 700,
      created: data.good,
      duplicates: 0,
      failed: data.bad,
      batches: 7,
      report,
    });
    const reported = reportOf(report);
    expect(new Set(reported.map(([row]) => row)).size).toBe(data.bad);
    expect(reported.map(([row]) => Number(row))).toEqual(
      [...reported.map(([row]) => Number(row))].sort((a, b) => a - b),
    );

    // The server counted each listing created once, and stored each once.
    expect(await createdTotal(key)).toBe(data.good);
    const [stored] = await queryRows<{ rows: string; ids: string }>(
      testClickHouse(),
      'SELECT count() AS rows, uniqExact(listing_id) AS ids FROM listings WHERE account_id = {account:String}',
      { account: account_id },
    );
    expect({ rows: Number(stored!.rows), ids: Number(stored!.ids) }).toEqual({
      rows: data.good,
      ids: data.good,
    });

    const rerun = await upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: stateDir });
    expect(summaryOf(rerun)).toMatchObject({ created: 0, duplicates: data.good, failed: data.bad });
  }, 120_000);

  it('waits out a 429 as Retry-After and RateLimit-Reset say, then finishes', async () => {
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 3 });
    const redis = await testRedis();
    const counters = usageKeys(env.REDIS_KEY_PREFIX, hashApiKey(key));
    const windowKey = counters.rateWindow;
    const usageDay = counters.day(bucketsOf(new Date()).day);
    const rateLimited = async () => Number((await redis.hget(usageDay, 'rate_limited')) ?? 0);
    // Use up the window (3 requests), then keep it closed for 3 s at a time until the uploader has
    // been answered 429 (the key's rate_limited counter moves), however long npm takes to start:
    // the test waits seconds, not the minute of a real window.
    for (let i = 0; i < 3; i++) expect((await api('GET', '/api/v1/listings/bulk', { key })).status).toBe(200);
    const limitedBefore = await rateLimited();

    // 150 rows: preflight + 2 batches = the 3 requests of the next window
    const { dir, file, data } = writeBigCsv('limited', `r${Date.now()}`, 150);
    const running = upload([file], { RLS_API_KEY: key, RLS_UPLOAD_STATE_DIR: join(dir, 'state') });
    let answered429At = 0;
    while (!answered429At) {
      await redis.pexpire(windowKey, 3_000);
      if ((await rateLimited()) > limitedBefore) answered429At = Date.now();
      else await sleep(100);
    }
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/rate limited: waiting [1-3] s/);
    expect(Date.now() - answered429At).toBeGreaterThan(1_500); // it waited for the window to reopen
    expect(summaryOf(run)).toMatchObject({ rows: 150, created: data.good, failed: data.bad, batches: 2 });
  });

  it('retries a 503 and a lost answer with the same Idempotency-Key and body: each batch counted once', async () => {
    const { key } = await createTestKey();
    // A proxy in front of the API: the first POST gets a 503, the second is forwarded but its
    // answer is dropped (the server created the listings; the client sees a broken connection).
    const seen: { key: string | undefined; body: string; outcome: string }[] = [];
    const target = new URL(baseUrl());
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const isPost = req.method === 'POST';
        const attempt = seen.filter((s) => s.outcome !== 'get').length;
        const outcome = !isPost ? 'get' : attempt === 0 ? '503' : attempt === 1 ? 'dropped' : 'forwarded';
        seen.push({
          key: req.headers['idempotency-key'] as string | undefined,
          body: body.toString(),
          outcome,
        });
        if (outcome === '503') {
          res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
          res.end(
            '{"error":{"code":"dependency_unavailable","message":"kafka is unavailable; retry later"}}',
          );
          return;
        }
        const forward = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: req.headers,
          },
          (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              if (outcome === 'dropped') return req.socket.destroy();
              res.writeHead(answer.statusCode!, answer.headers);
              res.end(Buffer.concat(parts));
            });
          },
        );
        forward.end(body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { dir, file, data } = writeBigCsv('flaky', `f${Date.now()}`, 100);
      const run = await upload([file], {
        RLS_API_KEY: key,
        RLS_API_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/api/v1`,
        RLS_UPLOAD_STATE_DIR: join(dir, 'state'),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/server error 503 dependency_unavailable; retrying/);
      // The lost answer's retry is proven by the proxy's records below (its ~1 s backoff is not always announced).
      expect(summaryOf(run)).toMatchObject({
        rows: 100,
        created: data.good,
        duplicates: 0,
        failed: data.bad,
        batches: 1,
      });
      const posts = seen.filter((s) => s.outcome !== 'get');
      expect(posts.map((p) => p.outcome)).toEqual(['503', 'dropped', 'forwarded']);
      expect(new Set(posts.map((p) => p.key)).size).toBe(1);
      expect(new Set(posts.map((p) => p.body)).size).toBe(1);
      expect(posts[0]!.key).toMatch(/^rls-upload-[0-9a-f]{16}-[0-9a-f]{12}-1$/);
      expect(await createdTotal(key)).toBe(data.good);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
