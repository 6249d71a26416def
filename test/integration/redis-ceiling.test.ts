// What one key can add to Redis, and what still works at its maxmemory ceiling (docs/auth.md,
// "Quotas"; docs/scaling.md, "Redis sizing"): snapshot external ids count against a daily quota by tier and
// a snapshot holds a bounded number of them; a kept 4xx reply of an Idempotency-Key is its status,
// code and digest, not its body; at the ceiling (noeviction) keys can still be revoked, and
// readiness says Redis is full. The ceiling is reached on a Redis of this test's own, so the
// shared one never refuses anybody else's writes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '../../common/auth/key-store.ts';
import { tierPolicies } from '../../common/auth/tiers.ts';
import { quotaKey, utcDay } from '../../ingest/quota.ts';
import { api, createTestKey, env, sampleListing, testRedis } from '../support/api.ts';
import { freePort, startGateway, type ExtraGateway } from '../support/auth.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const longId = (n: number) => `${String(n).padStart(8, '0')}-${'x'.repeat(119)}`; // 128 characters

const part = (key: string, snapshotId: string, part: number, parts: number, ids: string[]) =>
  api('POST', '/api/v1/listings/snapshots', {
    key,
    body: { snapshot_id: snapshotId, part, parts, external_ids: ids },
  });

describe('snapshot ids per day and per snapshot (error)', () => {
  it("refuses a free key's snapshot past its size (413) and its ids past the daily quota (429), storing nothing", async () => {
    const { key, account_id } = await createTestKey({ tier: 'free' });
    const { snapshotIdsPerDay, maxSnapshotIds } = tierPolicies.free;
    const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => longId(from + i));

    const first = await part(key, 'big', 1, 3, ids(0, maxSnapshotIds));
    expect(first.status).toBe(202);
    expect(first.body.external_ids).toBe(maxSnapshotIds);
    // The same part again stores nothing and uses none of the quota.
    expect((await part(key, 'big', 1, 3, ids(0, maxSnapshotIds))).status).toBe(202);

    const tooLarge = await part(key, 'big', 2, 3, ids(maxSnapshotIds, 1));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error).toMatchObject({
      code: 'snapshot_too_large',
      retriable: false,
      details: { field: 'external_ids', limit: maxSnapshotIds, held: maxSnapshotIds, requested: 1 },
    });

    const rest = snapshotIdsPerDay - maxSnapshotIds;
    expect((await part(key, 'second', 1, 1, ids(0, rest))).status).toBe(202);
    const refused = await part(key, 'third', 1, 1, ids(0, 1));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.error).toMatchObject({
      code: 'quota_exceeded',
      details: {
        quota: 'snapshot_ids_per_day',
        field: 'external_ids',
        limit: snapshotIdsPerDay,
        used: snapshotIdsPerDay,
        requested: 1,
      },
    });
    const redis = await testRedis();
    const refusedKeys = await redis.keys(`${env.REDIS_KEY_PREFIX}*snapshot*${account_id}*third*`);
    expect(refusedKeys).toEqual([]);
    // Growth per free key and day at the quota, printed for the closing note.
    const held = await redis.keys(`${env.REDIS_KEY_PREFIX}*snapshot*${account_id}*`);
    let bytes = 0;
    for (const name of held) bytes += Number(await redis.memory('USAGE', name, 'SAMPLES', '0'));
    process.stdout.write(
      `[figures] snapshot ids of one free key at its daily quota (${snapshotIdsPerDay} ids of 128 characters): ${bytes} bytes in Redis\n`,
    );
  });
});

describe('kept replies of refused requests (error)', () => {
  it('keeps a 400 of 100 invalid listings as its status, code and digest (< 1 KB), not its ~1 MB body', async () => {
    const { key, account_id } = await createTestKey({ tier: 'free' });
    const bad = { title: 'x'.repeat(2_000), price: -1, currency: 'EUR', description: 'y'.repeat(5_000) };
    const idempotencyKey = `large-400-${Date.now()}`;
    const first = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: Array.from({ length: 100 }, () => bad) },
      headers: { 'Idempotency-Key': idempotencyKey },
    });
    expect(first.status).toBe(400);
    const redis = await testRedis();
    const [record] = await redis.keys(`${env.REDIS_KEY_PREFIX}*idem*${account_id}*`);
    expect(record).toBeDefined();
    const fields = await redis.hgetall(record!);
    expect(fields).not.toHaveProperty('body');
    expect(fields).toMatchObject({ state: 'done', status: '400', code: first.body.error.code });
    const bytes = Number(await redis.memory('USAGE', record!));
    process.stdout.write(
      `[figures] kept 400 reply (100 invalid listings, body ${JSON.stringify(first.body).length} bytes): ${bytes} bytes in Redis\n`,
    );
    expect(bytes).toBeLessThan(1024);
  });
});

describe('kept replies per account and day (error)', () => {
  it("stops keeping Idempotency-Key replies past the account's daily budget: answered, not kept, a retry runs again", async () => {
    const { key, account_id } = await createTestKey({ tier: 'free' });
    const redis = await testRedis();
    const records = () => redis.keys(`${env.REDIS_KEY_PREFIX}*idem*${account_id}*`);
    const listings = Array.from({ length: 100 }, () => sampleListing());
    const post = (idempotencyKey: string) =>
      api('POST', '/api/v1/listings/bulk', {
        key,
        body: { listings },
        headers: { 'Idempotency-Key': idempotencyKey },
      });
    expect((await post(`created-${Date.now()}`)).status).toBe(201);
    // The same listings under a new key: all duplicates (nothing stored, no listing quota used).
    const duplicates = await post(`duplicates-${Date.now()}`);
    expect(duplicates.body.summary.duplicates).toBe(100);
    const kept = await records();
    expect(kept).toHaveLength(2);
    const sizes = await Promise.all(kept.map((name) => redis.memory('USAGE', name)));
    process.stdout.write(
      `[figures] kept 201 replies of 100 listings: ${sizes.join(', ')} bytes in Redis; budget of a free account ${tierPolicies.free.keptReplyBytesPerDay} bytes a day\n`,
    );

    const counter = quotaKey(env.REDIS_KEY_PREFIX, account_id, 'live', utcDay(new Date()));
    await redis.hset(counter, 'kept_reply_bytes', tierPolicies.free.keptReplyBytesPerDay - 100);
    const idempotencyKey = `over-budget-${Date.now()}`;
    const first = await post(idempotencyKey);
    expect(first.status).toBe(201);
    expect(await records()).toHaveLength(2); // not kept
    const again = await post(idempotencyKey);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotency-replayed')).toBeNull();
    expect(again.body.results.map((r: { listing_id: string }) => r.listing_id)).toEqual(
      first.body.results.map((r: { listing_id: string }) => r.listing_id),
    );
  });
});

describe('at the Redis memory ceiling (error)', () => {
  let server: ChildProcess;
  let redis: Redis;
  let url: string;
  let gateway: ExtraGateway | undefined;

  beforeAll(async () => {
    const port = await freePort();
    server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    url = `redis://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
        redis = probe;
        break;
      } catch (error) {
        probe.disconnect();
        if (Date.now() > deadline) throw error;
        await sleep(200);
      }
    }
  });

  afterAll(async () => {
    await gateway?.stop();
    redis?.disconnect();
    server?.kill('SIGKILL');
  });

  it('revokes a key with `keys revoke` and reports readiness 503 naming the ceiling once Redis is full', async () => {
    const store = createKeyStore(redis, env.REDIS_KEY_PREFIX);
    const keep = await store.create({ mode: 'live', tier: 'free', role: 'admin' });
    const leaked = await store.create({
      mode: 'live',
      tier: 'free',
      role: 'admin',
      accountId: keep.account_id,
    });
    const token = 'rls-ceiling-operator-token';
    gateway = await startGateway({ REDIS_URL: url, OPERATOR_TOKEN: token });
    const readiness = async () => {
      const response = await fetch(`${gateway!.baseUrl}/readyz`, { headers: { 'X-Operator-Token': token } });
      return { status: response.status, body: (await response.json()) as any };
    };
    expect((await readiness()).body.components.redis.status).toBe('ok');

    // Fill Redis to its ceiling: a ceiling just above what it holds, then writes until refused.
    const used = Number(/^used_memory:(\d+)/m.exec(await redis.info('memory'))![1]);
    await redis.config('SET', 'maxmemory', String(used + 4 * 1048576));
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    const chunk = 'f'.repeat(64 * 1024);
    let refused: unknown;
    for (let i = 0; i < 1_000 && !refused; i++) {
      await redis.set(`fill:${i}`, chunk).catch((error: unknown) => (refused = error));
    }
    expect(String(refused)).toContain('OOM');

    const cli = await promisify(execFile)('npm', ['run', '--silent', 'keys', '--', 'revoke', leaked.id], {
      env: { ...process.env, REDIS_URL: url },
      timeout: 60_000,
    });
    expect(JSON.parse(cli.stdout.trim().split('\n').at(-1)!)).toEqual({ id: leaked.id, status: 'revoked' });
    expect((await store.findById(leaked.id))?.status).toBe('revoked');

    // Health checks cache for a second.
    await sleep(1_100);
    const full = await readiness();
    expect(full.status).toBe(503);
    expect(full.body.failing).toContain('redis');
    expect(full.body.components.redis.error).toMatch(/maxmemory/);
  });
});
