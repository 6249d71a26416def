// The webhook outbox (a Redis stream per account, and an index of the accounts with entries in
// REDIS_GLOBAL_PARTS parts) against the real Redis: appends never cap a stream (a cap of ~100000
// once silently dropped the oldest unread events); an entry leaves only once the fan-out enqueued
// its deliveries; the backlog is logged and reported.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchStore, type NewBatch } from '../../common/batches.ts';
import { createLogger } from '../../common/logger.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import { createFanout, deliveryId } from '../../stream/webhooks/fanout.ts';
import { createOutboxWatch } from '../../stream/webhooks/outbox-watch.ts';
import { deliveryQueue } from '../../stream/webhooks/queue.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { api, env, eventually, testRedis } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';

const PARTS = 4;

/** A prefix of its own: these outboxes are nobody's but the test's. */
async function isolated() {
  const redis = await testRedis();
  const prefix = `test:outbox:${randomUUID().slice(0, 8)}:`;
  const batches = batchStore(redis, prefix, PARTS);
  return {
    redis,
    prefix,
    batches,
    webhooks: webhookStore(redis, prefix),
    queue: deliveryQueue(redis, prefix, PARTS),
    /** Records a batch as a bulk request does. */
    create: (batch: NewBatch) => recordBatch(redis, prefix, batch, PARTS),
    async cleanup() {
      const keys = await scanAll(redis, `${prefix}*`);
      if (keys.length) await redis.unlink(...keys);
    },
  };
}

const completedBatch = (accountId: string) => ({
  batch_id: randomUUID(),
  account_id: accountId,
  is_test: false,
  total: 1,
  duplicates: 1,
  failed_indexes: [],
  created_ids: [] as string[], // nothing to store: completed at once, one outbox entry
});

describe('webhook outbox', () => {
  it('error: keeps every unread event past 100,000 (no worker reading)', async () => {
    const { redis, batches, create, cleanup } = await isolated();
    try {
      const total = 100_300;
      const created: Promise<void>[] = [];
      for (let i = 0; i < total - 300; i++) {
        created.push(create(completedBatch('acct_outbox')));
        if (created.length === 2_000) await Promise.all(created.splice(0));
      }
      await Promise.all(created);
      // The rest completes through the stream's path (markStored, a Lua script).
      for (let i = 0; i < 300; i++) {
        const id = randomUUID();
        const batch = { ...completedBatch('acct_outbox'), created_ids: [id] };
        await create(batch);
        expect(await batches.markStored('acct_outbox', batch.batch_id, [id])).toBe(true);
      }
      expect(await redis.xlen(batches.outbox.key('acct_outbox'))).toBe(total);
      expect((await batches.outbox.stats()).backlog).toBe(total);
    } finally {
      await cleanup();
    }
  }, 300_000);

  it('happy: events of accounts in several parts each become one delivery, and leave the outbox once enqueued', async () => {
    const { redis, prefix, batches, webhooks, queue, create, cleanup } = await isolated();
    try {
      const accounts = Array.from({ length: 12 }, (_, i) => `acct_fan_${i}_${randomUUID().slice(0, 6)}`);
      expect(new Set(accounts.map((a) => partOf(a, PARTS))).size).toBeGreaterThan(1);
      for (const account of accounts) {
        await webhooks.create({
          account_id: account,
          mode: 'live',
          url: 'https://example.com/hook',
          events: ['listings.batch.completed'],
          description: '',
        });
        await create(completedBatch(account));
      }
      // The index of accounts with entries is in several parts.
      const indexed = await Promise.all(batches.outbox.index.parts.map((part) => redis.zcard(part.order)));
      expect(indexed.filter((n) => n > 0).length).toBeGreaterThan(1);
      expect(indexed.reduce((a, b) => a + b, 0)).toBe(accounts.length);

      const fanout = createFanout({ redis, prefix, outbox: batches.outbox, webhooks, batches, queue });
      let enqueued = 0;
      for (let round = 0; round < 5; round++) enqueued += Math.max(0, await fanout.poll());
      expect(enqueued).toBe(accounts.length);
      expect((await batches.outbox.stats()).backlog).toBe(0);
      for (const account of accounts) expect(await redis.xlen(batches.outbox.key(account))).toBe(0);
      // Settled: nothing left behind an index entry but the recheck of recently touched accounts.
      expect(await fanout.poll()).toBe(-1);

      // Every delivery is claimed exactly once, from every part of the due index.
      const claimed: string[] = [];
      for (let round = 0; round < 5; round++) {
        const { claimed: got } = await queue.claim(100, () => 10);
        claimed.push(...got.map((c) => `${c.account}|${c.id}`));
      }
      expect(claimed).toHaveLength(accounts.length);
      expect(new Set(claimed).size).toBe(accounts.length);
      expect(new Set(claimed.map((c: string) => c.split('|')[0]))).toEqual(new Set(accounts));
    } finally {
      await cleanup();
    }
  });

  it('error: an account taken by a worker that died is fanned out again after its lease, without doubling', async () => {
    const { redis, prefix, batches, webhooks, queue, create, cleanup } = await isolated();
    try {
      const account = `acct_crash_${randomUUID().slice(0, 8)}`;
      await webhooks.create({
        account_id: account,
        mode: 'live',
        url: 'https://example.com/hook',
        events: ['listings.batch.completed'],
        description: '',
      });
      await create(completedBatch(account));
      // A worker takes the account (its lease) and dies after enqueueing, before deleting the entry.
      const taken = await batches.outbox.index.due(Date.now(), 10, Date.now() + 60_000);
      expect(taken.map((t) => t.account)).toEqual([account]);
      const [entryId] = (await redis.xrange(batches.outbox.key(account), '-', '+')).map(([id]) => id);
      const [hook] = await webhooks.list(account);
      const delivery = {
        id: deliveryId(entryId!, hook!.id),
        webhook_id: hook!.id,
        account_id: account,
        is_test: false,
        event_type: 'listings.batch.completed',
        event_id: 'e',
        payload: '{}',
      };
      expect(await queue.enqueue(delivery, Date.now())).toBe(true);

      const fanout = createFanout({ redis, prefix, outbox: batches.outbox, webhooks, batches, queue });
      expect(await fanout.poll()).toBe(-1); // leased: nobody else takes it meanwhile
      // The lease ends: the entry is read again, and its delivery is not enqueued twice.
      const part = batches.outbox.index.parts[partOf(account, PARTS)]!;
      await redis.zadd(part.order, Date.now() - 1, account);
      expect(await fanout.poll()).toBe(0);
      expect(await redis.xlen(batches.outbox.key(account))).toBe(0);
      expect(await redis.zcard(queue.dueKey(account))).toBe(1);
    } finally {
      await cleanup();
    }
  });

  it('error: warns when the backlog passes the threshold, and says so once a minute at most', async () => {
    const { batches, create, cleanup } = await isolated();
    try {
      for (let i = 0; i < 12; i++) await create(completedBatch(`acct_outbox_${i % 3}`));
      const lines: string[] = [];
      let now = Date.now();
      const watch = createOutboxWatch({
        outbox: batches.outbox,
        warnAtBacklog: 10,
        logger: createLogger('info', {}, (line) => lines.push(line)),
        now: () => now,
      });
      await watch.tick();
      await watch.tick();
      const warnings = lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ msg: 'webhook outbox backlog', backlog: 12, warn_at: 10 });
      now += 61_000;
      await watch.tick();
      expect(lines.map((l) => JSON.parse(l)).filter((l) => l.level === 'warn')).toHaveLength(2);
    } finally {
      await cleanup();
    }
  });

  it("happy: the operator's /healthz shows the outbox backlog", async () => {
    const health = await eventually(async () => {
      const r = await api('GET', '/healthz', {
        headers: { 'X-Operator-Token': process.env.OPERATOR_TOKEN ?? '' },
      });
      return r.body?.components?.stream_workers?.webhook_outbox ? r.body : undefined;
    }, 30_000);
    const outbox = health.components.stream_workers.webhook_outbox;
    expect(outbox).toMatchObject({
      backlog: expect.any(Number),
      pending: expect.any(Number),
      unread: expect.any(Number),
    });
    // The suite's worker keeps up: nothing old is waiting.
    expect(outbox.backlog).toBeLessThan(1_000);
    expect(env.REDIS_KEY_PREFIX).toBeTruthy();
  });
});
