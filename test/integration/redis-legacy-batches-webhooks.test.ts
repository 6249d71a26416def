// The legacy moves of the batch and webhook families (registry.ts `legacy`, run by
// `npm run redis:migrate`) against the real Redis: keys written in the previous release's layout
// end under their account's tag, readable by the stores; running them twice changes nothing more;
// the old outbox's acknowledged entries leave, the others keep their ids in their account's outbox.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { batchStore } from '../../common/batches.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import { deliveryQueue } from '../../stream/webhooks/queue.ts';
import { testRedis } from '../support/api.ts';

const PARTS = 4;
const mine = [
  'common/batches.ts',
  'common/photos/batch-image-checks.ts',
  'common/photos/batch-summary.ts',
  'common/webhooks/outbox.ts',
  'common/webhooks/store.ts',
  'stream/webhooks/queue.ts',
];

describe('moving batches and webhooks from the previous layout (edge)', () => {
  it('moves every key under its account, idempotently, and keeps unacknowledged outbox entries', async () => {
    const redis = await testRedis();
    const prefix = `test:legacy:${randomUUID().slice(0, 8)}:`;
    const account = `acct_legacy_${randomUUID().slice(0, 8)}`;
    const batchId = randomUUID();
    const old = (suffix: string) => prefix + suffix;
    try {
      // The previous release's keys (its names, its layout).
      await redis.hset(old(`batch:${batchId}`), {
        batch_id: batchId,
        account_id: account,
        key_id: '',
        is_test: '0',
        status: 'processing',
        total: '2',
        created: '2',
        duplicates: '0',
        failed: '0',
        failed_indexes: '[]',
        created_at: new Date().toISOString(),
      });
      await redis.expire(old(`batch:${batchId}`), 3600);
      await redis.sadd(old(`batch:${batchId}:pending`), 'l2');
      await redis.hset(old(`batch:${batchId}:images`), { checked: '1', ok: '1', failed: '0', pending: '0' });
      await redis.hset(old(`webhook:wh_legacy`), { id: 'wh_legacy', account_id: account, mode: 'live' });
      await redis.zadd(old(`account:${account}:webhooks`), 1, 'wh_legacy');
      await redis.hset(old('webhook:delivery:msg_1'), { id: 'msg_1', account_id: account, state: 'pending' });
      await redis.zadd(old(`webhook:due:${account}`), Date.now() - 1_000, 'msg_1');
      await redis.zadd(old('webhook:due-accounts'), Date.now() - 1_000, account);
      await redis.hset(old('webhook:leases'), 'msg_0', 'token');
      const event = (n: number) => [
        'type',
        'webhook.test',
        'webhook_id',
        'wh_legacy',
        'account_id',
        account,
        'n',
        String(n),
      ];
      const ids: string[] = [];
      for (let n = 0; n < 4; n++) ids.push((await redis.xadd(old('outbox'), '*', ...event(n)))!);
      await redis.xgroup('CREATE', old('outbox'), 'webhooks', '0');
      await redis.xreadgroup('GROUP', 'webhooks', 'w1', 'COUNT', 2, 'STREAMS', old('outbox'), '>');
      await redis.xack(old('outbox'), 'webhooks', ids[0]!); // ids[1] read, not acknowledged; 2, 3 unread

      // What the migration runner does with each family's legacy names, twice.
      const families = keyFamilies.filter((f) => mine.includes(f.module) && f.legacy);
      for (let run = 0; run < 2; run++) {
        for (const family of families) {
          const keys = (await scanAll(redis, old(family.legacy!.pattern))).filter(
            (key) => !key.startsWith(`${prefix}{`),
          );
          for (const key of keys) {
            if (family.legacy!.move) await family.legacy!.move(redis, prefix, key, PARTS);
            else {
              const to = family.legacy!.rename!(prefix, key.slice(prefix.length), PARTS);
              if (to && (await redis.exists(key))) await redis.rename(key, to);
            }
          }
        }
      }

      // Nothing is left in the old layout.
      const left = (await scanAll(redis, `${prefix}*`)).filter((key) => !key.startsWith(`${prefix}{`));
      expect(left).toEqual([]);
      const batches = batchStore(redis, prefix, PARTS);
      expect(await batches.get(account, batchId)).toMatchObject({
        status: 'processing',
        created: 2,
        stored: 1,
      });
      expect(await redis.pttl(`${prefix}{a:${account}}:batch:${batchId}`)).toBeGreaterThan(0);
      expect(await redis.hget(`${prefix}{a:${account}}:batch:${batchId}:images`, 'checked')).toBe('1');
      expect((await webhookStore(redis, prefix).list(account)).map((w) => w.id)).toEqual(['wh_legacy']);
      const queue = deliveryQueue(redis, prefix, PARTS);
      expect((await queue.get(account, 'msg_1'))?.state).toBe('pending');
      expect((await queue.claim(10, () => 10)).claimed).toEqual([{ id: 'msg_1', account }]);
      // The outbox: the acknowledged entry left, the others kept their ids, once each.
      const entries = await redis.xrange(batches.outbox.key(account), '-', '+');
      expect(entries.map(([id]) => id)).toEqual(ids.slice(1));
      expect((await batches.outbox.index.due(Date.now(), 10)).map((a) => a.account)).toEqual([account]);
      // Completing the batch now announces it in the same outbox.
      expect(await batches.markStored(account, batchId, ['l2'])).toBe(true);
    } finally {
      const keys = await scanAll(redis, `${prefix}*`);
      if (keys.length) await redis.unlink(...keys);
    }
  });
});
