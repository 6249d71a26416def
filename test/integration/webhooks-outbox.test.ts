// The webhook outbox (a Redis stream) against the real Redis: entries were
// appended with MAXLEN ~100000, so a backlog past 100,000 events (the delivery workers down for a
// while, or slower than the ingest) silently dropped the oldest unread events. Now only entries the
// fan-out has read and acknowledged are trimmed, and the backlog is logged and reported.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchStore, type NewBatch } from '../../common/batches.ts';
import { createLogger } from '../../common/logger.ts';
import { OUTBOX_GROUP, outboxStats, trimOutbox } from '../../common/webhooks/outbox.ts';
import { createOutboxWatch } from '../../stream/webhooks/outbox-watch.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { api, env, eventually, ownKeyPrefix, testRedis } from '../support/api.ts';
import { recordBatch } from '../support/batches.ts';

/** A prefix of its own: these outboxes are nobody's but the test's. */
async function isolated() {
  const redis = await testRedis();
  const prefix = ownKeyPrefix(`test:outbox:${randomUUID().slice(0, 8)}:`);
  const batches = batchStore(redis, prefix);
  return {
    redis,
    prefix,
    batches,
    /** Records a batch as a bulk request does. */
    create: (batch: NewBatch) => recordBatch(redis, prefix, batch),
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
        expect(await batches.markStored(batch.batch_id, [id])).toBe(true);
      }
      expect(await redis.xlen(batches.outboxKey)).toBe(total);
      expect((await outboxStats(redis, batches.outboxKey)).backlog).toBe(total);
    } finally {
      await cleanup();
    }
  }, 180_000);

  it('happy: trims only what the fan-out has read and acknowledged; pending and unread entries stay', async () => {
    const { redis, batches, create, cleanup } = await isolated();
    try {
      await redis.xgroup('CREATE', batches.outboxKey, OUTBOX_GROUP, '0', 'MKSTREAM');
      for (let i = 0; i < 10; i++) await create(completedBatch('acct_outbox'));
      const read = (await redis.xreadgroup(
        'GROUP',
        OUTBOX_GROUP,
        'test-consumer',
        'COUNT',
        6,
        'STREAMS',
        batches.outboxKey,
        '>',
      )) as [string, [string, string[]][]][];
      const ids = read[0]![1].map(([id]) => id);
      await redis.xack(batches.outboxKey, OUTBOX_GROUP, ...ids.slice(0, 4)); // 5th and 6th stay pending
      expect(await outboxStats(redis, batches.outboxKey)).toMatchObject({
        unread: 4,
        pending: 2,
        backlog: 6,
      });
      expect(await trimOutbox(redis, batches.outboxKey)).toBe(4);
      const left = (await redis.xrange(batches.outboxKey, '-', '+')).map(([id]) => id);
      expect(left).toHaveLength(6);
      expect(left[0]).toBe(ids[4]); // the first pending one; nothing after it was touched
    } finally {
      await cleanup();
    }
  });

  it('error: warns when the backlog passes the threshold, and says so once a minute at most', async () => {
    const { redis, batches, create, cleanup } = await isolated();
    try {
      for (let i = 0; i < 12; i++) await create(completedBatch('acct_outbox'));
      const lines: string[] = [];
      let now = Date.now();
      const watch = createOutboxWatch({
        redis,
        outboxKey: batches.outboxKey,
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
