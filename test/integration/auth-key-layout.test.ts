// The key store over several Redis Cluster slots (common/auth/key-store.ts, key-changes.ts,
// access-check.ts): the key index in parts that `list` reads all of, the no-lock-out guard and
// "rolled once" under concurrency now that revoke and roll are several one-slot steps, and the
// account's window (another slot than the key's) giving the key's window back when it refuses.
import { describe, expect, it } from 'vitest';
import { hashApiKey } from '../../common/auth/api-key-format.ts';
import { createKeyStore, keyStoreKeys, LastAdminKeyError } from '../../common/auth/key-store.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { accountRateWindowKey, bucketsOf, usageKeys } from '../../common/usage/keys.ts';
import { readUsage } from '../../common/usage/counters.ts';
import { env, testRedis } from '../support/api.ts';

const store = async () => createKeyStore(await testRedis(), env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);

describe('key store layout (happy)', () => {
  it('keeps the key index in parts by key id; list() returns the keys of every part', async () => {
    const keys = await store();
    const redis = await testRedis();
    const first = await keys.create({ mode: 'live', tier: 'free' });
    const made = [first];
    for (let i = 0; i < 11; i++)
      made.push(await keys.create({ mode: 'live', tier: 'free', accountId: first.account_id }));
    const parts = new Set(made.map((key) => partOf(key.id, env.REDIS_GLOBAL_PARTS)));
    expect(parts.size).toBeGreaterThan(1);
    for (const key of made) {
      const part = keyStoreKeys(env.REDIS_KEY_PREFIX).index(partOf(key.id, env.REDIS_GLOBAL_PARTS));
      expect(await redis.zscore(part, key.id)).toBe(String(Date.parse(key.created_at)));
    }
    const listed = (await keys.list()).map((key) => key.id);
    expect(listed).toEqual(expect.arrayContaining(made.map((key) => key.id)));
    // Oldest first across the parts.
    const ours = listed.filter((id) => made.some((key) => key.id === id));
    expect(ours).toEqual(
      [...made]
        .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
        .map((key) => key.id),
    );
  });

  it("refuses with the account's window without consuming the key's: the request counts as rate limited", async () => {
    const keys = await store();
    const redis = await testRedis();
    const created = await keys.create({ mode: 'live', tier: 'free' });
    const hash = hashApiKey(created.key);
    expect((await keys.authorize(created.key, 'GET /x')).outcome).toBe('allowed');
    // Another key of the account used up the account's window.
    await redis.set(accountRateWindowKey(env.REDIS_KEY_PREFIX, created.account_id), 120, 'PX', 60_000);
    const refused = await keys.authorize(created.key, 'GET /x');
    expect(refused).toMatchObject({ outcome: 'rate_limited', rateLimit: { scope: 'account', remaining: 0 } });
    expect(await redis.get(usageKeys(env.REDIS_KEY_PREFIX, hash).rateWindow)).toBe('1');
    const usage = await readUsage(redis, env.REDIS_KEY_PREFIX, hash);
    expect(usage.today.requests).toEqual({ total: 1, rate_limited: 1, by_endpoint: { 'GET /x': 1 } });
    const day = await redis.hgetall(usageKeys(env.REDIS_KEY_PREFIX, hash).day(bucketsOf(new Date()).day));
    expect(day).toMatchObject({ requests: '1', rate_limited: '1', 'ep:GET /x': '1' });
  });
});

describe('key changes under concurrency (error)', () => {
  it('five admin keys revoking each other at once: exactly one stays', async () => {
    const keys = await store();
    const boss = await keys.create({ mode: 'live', tier: 'pro', role: 'admin' });
    const admins = [boss];
    for (let i = 0; i < 4; i++) {
      admins.push(
        await keys.create({ mode: 'live', tier: 'pro', role: 'admin', accountId: boss.account_id }),
      );
    }
    const results = await Promise.allSettled(
      admins.map((key) => keys.revoke(key.id, { keepAdminOfModes: ['live'] })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(1);
    expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(LastAdminKeyError);
    const active = (await keys.listAccount(boss.account_id)).filter((key) => key.status === 'active');
    expect(active).toHaveLength(1);
    expect((await keys.authorize(admins.find((a) => a.id === active[0]!.id)!.key, 'test')).outcome).toBe(
      'allowed',
    );
  });

  it('a key rolled twice at once: one roll wins, the other leaves no replacement behind', async () => {
    const keys = await store();
    const redis = await testRedis();
    const old = await keys.create({ mode: 'live', tier: 'pro', role: 'admin' });
    const expiresAt = new Date(Date.now() + 3_600_000);
    const results = await Promise.allSettled([
      keys.roll(old.id, { expiresAt }),
      keys.roll(old.id, { expiresAt }),
    ]);
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    const created = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof keys.roll>>>).value!.created;
    const listed = (await keys.listAccount(old.account_id)).map((key) => key.id).sort();
    expect(listed).toEqual([old.id, created.id].sort());
    const k = keyStoreKeys(env.REDIS_KEY_PREFIX);
    expect((await redis.smembers(k.accountAdmins(old.account_id))).sort()).toEqual([created.id]);
    expect((await keys.findById(old.id))?.replaced_by).toBe(created.id);
    expect((await keys.authorize(created.key, 'test')).outcome).toBe('allowed');
  });
});
