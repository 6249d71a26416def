// The index of accounts with outbox entries or due deliveries (common/webhooks/account-index.ts)
// against the real Redis: its entries and the work they point to are in different slots, written
// in steps (index, work, index again), so a reader must never drop an account whose work a
// producer is still writing, or whose producer died between its steps.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { redisScript } from '../../common/clients/redis-script.ts';
import { scanAll } from '../../common/clients/redis.ts';
import {
  INDEX_GRACE_MS,
  PRODUCER_DEADLINE_MS,
  STALE,
  STAMP_FRESH_LUA,
} from '../../common/webhooks/account-index.ts';
import { outboxIndex } from '../../common/webhooks/outbox.ts';
import { testRedis } from '../support/api.ts';

async function isolated() {
  const redis = await testRedis();
  const prefix = `test:index:${randomUUID().slice(0, 8)}:`;
  return {
    redis,
    index: outboxIndex(redis, prefix, 4),
    account: `acct_${randomUUID().slice(0, 8)}`,
    async cleanup() {
      const keys = await scanAll(redis, `${prefix}*`);
      if (keys.length) await redis.unlink(...keys);
    },
  };
}

describe('account index (edge)', () => {
  it('settles away an entry with nothing behind it, once no producer can still be writing', async () => {
    const { index, account, cleanup } = await isolated();
    try {
      await index.touch(account, Date.now()); // a producer that died before writing its work
      const [found] = await index.due(Date.now(), 10);
      expect(found?.account).toBe(account);
      await index.settle(found!, null); // too soon: looked at again when the grace has passed
      expect(await index.due(Date.now(), 10)).toEqual([]);
      const later = Date.now() + INDEX_GRACE_MS + 1;
      const [again] = await index.due(later, 10);
      expect(again?.account).toBe(account);
      await index.settle(again!, null, later);
      expect(await index.all()).toEqual([]);
    } finally {
      await cleanup();
    }
  });

  it('keeps an account touched after the reader looked (its work may be written after the look)', async () => {
    const { index, account, cleanup } = await isolated();
    try {
      await index.touch(account, Date.now());
      const later = Date.now() + INDEX_GRACE_MS + 1;
      const [found] = await index.due(later, 10);
      await index.touch(account, Date.now()); // another producer, between the look and the settle
      await index.settle(found!, null, later);
      expect((await index.all()).map((a) => a.account)).toEqual([account]);
    } finally {
      await cleanup();
    }
  });

  it('finds work whose producer died before its second touch, though a reader looked before the work', async () => {
    const { index, account, cleanup } = await isolated();
    try {
      await index.touch(account, Date.now()); // step 1
      const [found] = await index.due(Date.now(), 10); // a reader looks: nothing yet
      // Step 2 (the work) is written now, then the producer dies: no step 3.
      await index.settle(found!, null); // what the reader saw when it looked: nothing
      // Wrongly settled as empty would lose the work; it is looked at again after the grace.
      const [again] = await index.due(Date.now() + INDEX_GRACE_MS + 1, 10);
      expect(again?.account).toBe(account);
    } finally {
      await cleanup();
    }
  });

  it('refuses a work step later than the deadline after its touch, and the producer starts again', async () => {
    const { redis, index, account, cleanup } = await isolated();
    try {
      const fresh = redisScript(`${STAMP_FRESH_LUA}
return stamp_fresh(ARGV[1]) and 1 or 0`);
      expect(await fresh.run(redis, 0, `${Date.now()}:a`)).toBe(1);
      expect(await fresh.run(redis, 0, `${Date.now() - PRODUCER_DEADLINE_MS - 1_000}:a`)).toBe(0);
      const stamps: string[] = [];
      const result = await index.produce(account, Date.now(), async (stamp) => {
        stamps.push(stamp);
        return stamps.length === 1 ? STALE : 'written';
      });
      expect(result).toBe('written');
      expect(stamps).toHaveLength(2);
      expect(new Set(stamps).size).toBe(2);
    } finally {
      await cleanup();
    }
  });
});
