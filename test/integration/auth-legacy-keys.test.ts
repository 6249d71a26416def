// The registry's `legacy` entries of the auth and usage families (common/auth/legacy-keys.ts,
// common/usage/legacy-keys.ts): a store as the previous release wrote it (names without hash
// tags; counters and rate windows by key id; one key index, outbox and dirty set), moved as
// `npm run redis:migrate` moves it, twice (idempotent), serves every key with its limits and usage.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey } from '../../common/auth/api-key-format.ts';
import { keyAuditOutboxKey } from '../../common/auth/key-audit.ts';
import { createKeyStore, LastAdminKeyError } from '../../common/auth/key-store.ts';
import { scanAll } from '../../common/clients/redis.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { readUsage } from '../../common/usage/counters.ts';
import { accountRateWindowKey, bucketsOf, dirtyKey, usageKeys } from '../../common/usage/keys.ts';
import { env, testRedis } from '../support/api.ts';

const prefix = `rls:test-legacy-${randomBytes(4).toString('hex')}:`;
const parts = env.REDIS_GLOBAL_PARTS;
const ours = ['common/auth/key-store.ts', 'common/auth/key-audit.ts', 'common/usage/keys.ts'];

afterAll(async () => {
  const redis = await testRedis();
  for (const key of await scanAll(redis, `${prefix}*`)) await redis.del(key);
});

/** What the migration runner does with these families (on one node: RENAME for a rename). */
async function migrate() {
  const redis = await testRedis();
  for (const family of keyFamilies.filter((f) => ours.includes(f.module) && f.legacy)) {
    const legacy = family.legacy!;
    for (const oldKey of await scanAll(redis, `${prefix}${legacy.pattern}`)) {
      if (legacy.move) await legacy.move(redis, prefix, oldKey, parts);
      const to = legacy.rename?.(prefix, oldKey.slice(prefix.length), parts);
      if (to) await redis.rename(oldKey, to);
    }
  }
}

describe('auth and usage keys of the previous release (happy)', () => {
  it('moves keys, accounts, index, windows, counters, dirty set and outbox: every key works with its limits and usage', async () => {
    const redis = await testRedis();
    const account = `acct_${randomBytes(12).toString('hex')}`;
    const at = new Date();
    const { day, month } = bucketsOf(at);
    const keys = [0, 1].map((i) => {
      const key = generateApiKey('live');
      const id = `key_${randomBytes(12).toString('hex')}`;
      const record = {
        id,
        account_id: account,
        mode: 'live',
        tier: 'business',
        role: 'admin',
        name: `k${i}`,
        status: 'active',
        rate_limit: '60',
        prefix: key.slice(0, 13),
        created_at: new Date(at.getTime() + i).toISOString(),
        hash: hashApiKey(key),
      };
      return { key, id, hash: record.hash, record };
    });
    const [boss, deputy] = keys as [(typeof keys)[0], (typeof keys)[0]];
    // As the previous release wrote them (its key-store.ts, access-check.ts, counters.ts, key-audit.ts).
    await redis.hset(`${prefix}account:${account}`, {
      id: account,
      created_at: at.toISOString(),
      admins_indexed: '1',
    });
    for (const { id, hash, record } of keys) {
      await redis.hset(`${prefix}key:h:${hash}`, record);
      await redis.set(`${prefix}key:id:${id}`, hash);
      await redis.zadd(`${prefix}keys`, Date.parse(record.created_at), id);
      await redis.sadd(`${prefix}account:${account}:keys`, id);
      await redis.sadd(`${prefix}account:${account}:admins`, id);
    }
    await redis.set(`${prefix}rl:${boss.id}`, '59', 'PX', 50_000);
    await redis.set(`${prefix}rla:${account}`, '5', 'PX', 50_000);
    await redis.hset(`${prefix}usage:${boss.id}:d:${day}`, { requests: '7', 'ep:GET /x': '7' });
    await redis.expire(`${prefix}usage:${boss.id}:d:${day}`, 3600);
    await redis.hset(`${prefix}usage:${boss.id}:m:${month}`, { requests: '9', 'ep:GET /x': '9' });
    await redis.hset(`${prefix}usage:${boss.id}:total`, { listings_created: '3' });
    await redis.sadd(`${prefix}usage:dirty:${day}`, boss.id);
    await redis.xadd(
      `${prefix}audit:keys`,
      '*',
      'event',
      JSON.stringify({ event_id: 'e1', account_id: account }),
    );

    await migrate();
    await migrate();

    // Nothing is left under the previous names (every name now begins with a hash tag).
    expect((await scanAll(redis, `${prefix}*`)).filter((key) => !key.startsWith(`${prefix}{`))).toEqual([]);
    const store = createKeyStore(redis, prefix, parts);
    // The key's window moved with its 59 requests: one more, then the key's limit.
    const allowed = await store.authorize(boss.key, 'GET /x');
    expect(allowed).toMatchObject({ outcome: 'allowed', rateLimit: { scope: 'key', remaining: 0 } });
    expect(await store.authorize(boss.key, 'GET /x')).toMatchObject({
      outcome: 'rate_limited',
      rateLimit: { scope: 'key' },
    });
    expect(await redis.get(accountRateWindowKey(prefix, account))).toBe('6');
    const usage = await readUsage(redis, prefix, boss.hash);
    expect(usage.today.requests).toEqual({ total: 8, rate_limited: 1, by_endpoint: { 'GET /x': 8 } });
    expect(usage.this_month.requests.total).toBe(10);
    expect(usage.total.listings.created).toBe(3);
    expect(await redis.ttl(usageKeys(prefix, boss.hash).day(day))).toBeGreaterThan(3000);
    expect(await redis.sismember(dirtyKey(prefix, day, boss.hash, parts), boss.hash)).toBe(1);
    const outbox = await redis.xrange(keyAuditOutboxKey(prefix, partOf(account, parts)), '-', '+');
    expect(outbox.map(([, fields]) => fields[1])).toEqual([
      JSON.stringify({ event_id: 'e1', account_id: account }),
    ]);

    expect((await store.list()).map((key) => key.id)).toEqual([boss.id, deputy.id]);
    expect((await store.listAccount(account)).map((key) => key.id)).toEqual([boss.id, deputy.id]);
    expect((await store.authorize(deputy.key, 'GET /x')).outcome).toBe('allowed');
    // The admin set moved too: the guard keeps the last admin key.
    expect((await store.revoke(deputy.id, { keepAdminOfModes: ['live'] }))?.status).toBe('revoked');
    await expect(store.revoke(boss.id, { keepAdminOfModes: ['live'] })).rejects.toBeInstanceOf(
      LastAdminKeyError,
    );
  });
});
