// Webhook delivery against a real receiver on 127.0.0.1 (the test run sets
// OUTBOUND_ALLOW_CIDRS=127.0.0.0/8 and WEBHOOK_RETRY_SCHEDULE_MS=0,500,1500,3000).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { batchStore } from '../../common/batches.ts';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { api, createTestKey, env, eventually, testClickHouse, testRedis } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';
import { startReceiver, type Receiver } from '../support/webhooks-receiver.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function register(key: string, url: string) {
  const created = await api('POST', '/api/v1/webhooks/register', { key, body: { url } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; secret: string };
}

const waitFor = (r: Receiver, count: number, timeoutMs = 20_000) =>
  eventually(
    async () => (r.received.length >= count ? r.received : undefined),
    timeoutMs,
    `${count} deliveries`,
  );

/** A batch that is complete at once (its one listing a duplicate): its event goes out straight away. */
async function completedBatchOf(account_id: string, is_test: boolean) {
  await recordBatch(await testRedis(), env.REDIS_KEY_PREFIX, {
    batch_id: randomUUID(),
    account_id,
    is_test,
    total: 1,
    duplicates: 1,
    failed_indexes: [],
    created_ids: [],
  });
}

describe('webhook delivery (happy)', () => {
  it('signs listings.batch.completed so that standardwebhooks verifies it', async () => {
    const { key, account_id } = await createTestKey();
    const r = await receiver();
    const hook = await register(key, r.url);

    const batches = batchStore(await testRedis(), env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const batchId = randomUUID();
    const ids = [randomUUID(), randomUUID()];
    await recordBatch(await testRedis(), env.REDIS_KEY_PREFIX, {
      batch_id: batchId,
      account_id,
      is_test: false,
      total: 3,
      duplicates: 0,
      failed_indexes: [2],
      created_ids: ids,
    });
    await batches.markStored(account_id, batchId, [ids[0]!]);
    await sleep(500);
    expect(r.received).toHaveLength(0); // not completed yet
    await batches.markStored(account_id, batchId, [ids[1]!]);

    const [delivery] = await waitFor(r, 1);
    const event = new Webhook(hook.secret).verify(delivery!.body, {
      'webhook-id': String(delivery!.headers['webhook-id']),
      'webhook-timestamp': String(delivery!.headers['webhook-timestamp']),
      'webhook-signature': String(delivery!.headers['webhook-signature']),
    }) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(event.type).toBe('listings.batch.completed');
    expect(event.data).toMatchObject({
      batch_id: batchId,
      status: 'completed',
      test_mode: false,
      total: 3,
      created: 2,
      failed: 1,
      failed_indexes: [2],
      images: { checked: 0, ok: 0, failed: 0, pending: 0 },
    });
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(String(delivery!.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
  });

  it('delivers the events of accounts in several index parts, each exactly once', async () => {
    const r = await receiver();
    const accounts = await Promise.all(Array.from({ length: 12 }, () => createTestKey()));
    // Their outbox and due-list entries are in several parts (REDIS_GLOBAL_PARTS) of the indexes.
    expect(new Set(accounts.map((a) => partOf(a.account_id, env.REDIS_GLOBAL_PARTS))).size).toBeGreaterThan(
      1,
    );
    for (const { key } of accounts) await register(key, r.url);
    await Promise.all(accounts.map(({ account_id }) => completedBatchOf(account_id, false)));
    await waitFor(r, accounts.length);
    await sleep(1_500);
    expect(r.received).toHaveLength(accounts.length);
    const ids = new Set(r.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(accounts.length);
  });

  it('sends webhook.test on request, and logs the attempt in ClickHouse', async () => {
    const { key } = await createTestKey();
    const r = await receiver();
    const hook = await register(key, r.url);
    const queued = await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    expect(queued.status).toBe(202);
    const [delivery] = await waitFor(r, 1);
    const event = new Webhook(hook.secret).verify(delivery!.body, delivery!.headers as never) as {
      type: string;
      data: { webhook_id: string };
    };
    expect(event.type).toBe('webhook.test');
    expect(event.data.webhook_id).toBe(hook.id);

    const rows = await eventually(async () => {
      const found = await queryRows<{ outcome: string; status_code: number }>(
        testClickHouse(),
        'SELECT outcome, status_code FROM webhook_deliveries WHERE webhook_id = {id:String}',
        { id: hook.id },
      );
      return found.length ? found : undefined;
    });
    expect(rows[0]).toMatchObject({ outcome: 'succeeded', status_code: 200 });
  });

  it('retries a failing receiver with the same webhook-id and growing gaps', async () => {
    const { key, account_id } = await createTestKey();
    const r = await receiver();
    r.script = [{ status: 500 }, { status: 503 }];
    const hook = await register(key, r.url);
    await completedBatchOf(account_id, false);
    const got = await waitFor(r, 3);
    await sleep(2_000);
    expect(r.received).toHaveLength(3); // success ends the retries
    const ids = new Set(got.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    const gap1 = got[1]!.at - got[0]!.at;
    const gap2 = got[2]!.at - got[1]!.at;
    expect(gap1).toBeGreaterThanOrEqual(400); // 500 ms ±10 %
    expect(gap2).toBeGreaterThan(gap1); // 1500 ms ±10 %
    const record = await api('GET', `/api/v1/webhooks/${hook.id}`, { key });
    expect(record.body).toMatchObject({ status: 'enabled', failing_since: null });
    expect(record.body.last_success_at).toBeTruthy();
  });

  it('honours Retry-After from the receiver', async () => {
    const { key } = await createTestKey();
    const r = await receiver();
    r.script = [{ status: 429, headers: { 'retry-after': '2' } }];
    const hook = await register(key, r.url);
    await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    const got = await waitFor(r, 2);
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(1_900); // schedule says ~500 ms
  });

  it('delivers test-mode batches only to test-mode webhooks', async () => {
    const live = await createTestKey();
    const test = await createTestKey({ mode: 'test', accountId: live.account_id });
    const liveReceiver = await receiver();
    const testReceiver = await receiver();
    await register(live.key, liveReceiver.url);
    await register(test.key, testReceiver.url);
    await completedBatchOf(live.account_id, true);
    const [delivery] = await waitFor(testReceiver, 1);
    expect(JSON.parse(delivery!.body).data.test_mode).toBe(true);
    await sleep(1_000);
    expect(liveReceiver.received).toHaveLength(0);
  });
});

describe('webhook delivery (error)', () => {
  it('disables a webhook whose receiver answers 410 Gone', async () => {
    const { key } = await createTestKey();
    const r = await receiver();
    r.script = [{ status: 410 }];
    const hook = await register(key, r.url);
    await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    await waitFor(r, 1);
    const record = await eventually(async () => {
      const now = await api('GET', `/api/v1/webhooks/${hook.id}`, { key });
      return now.body.status === 'disabled' ? now.body : undefined;
    });
    expect(record.disabled_reason).toMatch(/410/);
    await sleep(1_000);
    expect(r.received).toHaveLength(1); // no retry after 410
    const again = await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    expect(again.status).toBe(400);
  });

  it('disables a webhook after the whole retry schedule failed, and says so in its record', async () => {
    const { key } = await createTestKey();
    const r = await receiver();
    r.script = Array.from({ length: 10 }, () => ({ status: 500 }));
    const hook = await register(key, r.url);
    await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    const record = await eventually(
      async () => {
        const now = await api('GET', `/api/v1/webhooks/${hook.id}`, { key });
        return now.body.status === 'disabled' ? now.body : undefined;
      },
      30_000,
      'webhook disabled',
    );
    expect(r.received).toHaveLength(4); // the test schedule has four attempts
    expect(record.disabled_reason).toMatch(/no successful delivery since/);
    expect(record.failing_since).toBeTruthy();
    expect(record.last_failure_reason).toMatch(/500/);
  });

  it('sends nothing to a deleted webhook, including pending retries', async () => {
    const { key, account_id } = await createTestKey();
    const r = await receiver();
    r.script = [{ status: 500 }];
    const hook = await register(key, r.url);
    await api('POST', `/api/v1/webhooks/${hook.id}/test`, { key, body: {} });
    await waitFor(r, 1);
    const deleted = await api('DELETE', `/api/v1/webhooks/${hook.id}`, { key });
    expect(deleted.status).toBe(200);
    await completedBatchOf(account_id, false);
    await sleep(3_000); // past the 500 ms retry
    expect(r.received).toHaveLength(1);
  });
});

describe('webhook delivery fairness', () => {
  it("one account's hanging receiver holds at most its share of the worker; another account is served at once", async () => {
    // Account A: 30 events for a receiver that accepts the connection and never answers (each
    // attempt waits out WEBHOOK_TIMEOUT_MS, 15 s). Before per-account shares, the worker's 16
    // slots all went to A's deliveries (the oldest due) and B's waited behind them for ≥ 15 s.
    let open = 0;
    let peak = 0;
    const hanging = http.createServer((req) => {
      open++;
      peak = Math.max(peak, open);
      req.on('close', () => open--);
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const a = await createTestKey();
    const b = await createTestKey();
    const hookA = await register(a.key, `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/hook`);
    const fast = await receiver();
    await register(b.key, fast.url);
    const redis = await testRedis();
    const completed = (account_id: string) =>
      recordBatch(redis, env.REDIS_KEY_PREFIX, {
        batch_id: randomUUID(),
        account_id,
        is_test: false,
        total: 1,
        duplicates: 1,
        failed_indexes: [],
        created_ids: [], // nothing to store: completed at once, one event in the outbox
      });
    try {
      for (let i = 0; i < 30; i++) await completed(a.account_id);
      await eventually(async () => (peak > 0 ? true : undefined), 10_000, "A's first attempts");
      const started = Date.now();
      await completed(b.account_id);
      await waitFor(fast, 1, 10_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(peak).toBeLessThanOrEqual(4); // WEBHOOK_PER_ACCOUNT_CONCURRENCY (one worker in this phase)
    } finally {
      await api('DELETE', `/api/v1/webhooks/${hookA.id}`, { key: a.key }); // its pending deliveries are dropped
      hanging.closeAllConnections();
      await new Promise<void>((resolve) => hanging.close(() => resolve()));
    }
  }, 60_000);
});
