// Key sets that stay bounded (docs/auth.md "Managing keys over the API"): admin keys in a set of
// their own, GET /keys paged, revoked keys pruned on create, revoke and roll, and the admin set
// filled once for accounts whose keys predate it.
import { describe, expect, it } from 'vitest';
import { createKeyStore, keyStoreKeys, PRUNE_BATCH } from '../../common/auth/key-store.ts';
import { api, env, testRedis } from '../support/api.ts';
import {
  expectError,
  admin,
  createKey,
  listKeys,
  revokeKey,
  rollKey,
  ids,
  daysAgo,
  ageRevocation,
  expectPruned,
} from '../support/keys-api.ts';

describe('bounded key sets (happy)', () => {
  it("keeps an account's admin keys in a set of their own, which revoking reads instead of every key", async () => {
    const boss = await admin();
    const deputy = (await createKey(boss, { mode: 'live', role: 'admin' })).body;
    const worker = (await createKey(boss, { mode: 'live' })).body;
    const redis = await testRedis();
    const admins = () => redis.smembers(keyStoreKeys(env.REDIS_KEY_PREFIX).accountAdmins(boss.account_id));
    expect((await admins()).sort()).toEqual([boss.id, deputy.id].sort());
    // A rolled admin key leaves the set (it no longer counts for the guard); its replacement joins.
    const rolled = (await rollKey(boss, deputy.id)).body;
    expect((await admins()).sort()).toEqual([boss.id, rolled.id].sort());
    expect((await revokeKey(boss, deputy.id)).status).toBe(200);
    expect((await admins()).sort()).toEqual([boss.id, rolled.id].sort());
    expect(await admins()).not.toContain(worker.id);
    // The guard still sees the remaining admin: revoking the last one of them is refused.
    expect((await revokeKey(boss, rolled.id)).status).toBe(200);
    expectError(await revokeKey(boss, boss.id), 409, 'last_admin_key');
  });

  it('pages GET /keys with limit and after, oldest first', async () => {
    const boss = await admin();
    for (let i = 0; i < 3; i++)
      expect((await createKey(boss, { mode: 'live', name: `k${i}` })).status).toBe(201);
    const all = await api('GET', '/api/v1/keys', { key: boss.key });
    expect(all.body.keys).toHaveLength(4);
    expect(all.body.next_after).toBeNull();
    const first = await api('GET', '/api/v1/keys?limit=3', { key: boss.key });
    expect(first.body.keys.map((k: { id: string }) => k.id)).toEqual(
      all.body.keys.slice(0, 3).map((k: { id: string }) => k.id),
    );
    expect(first.body.next_after).toBe(all.body.keys[2].id);
    const rest = await api('GET', `/api/v1/keys?limit=3&after=${first.body.next_after}`, { key: boss.key });
    expect(rest.body.keys.map((k: { id: string }) => k.id)).toEqual([all.body.keys[3].id]);
    expect(rest.body.next_after).toBeNull();
    for (const query of [
      'limit=0',
      'limit=1001',
      'limit=x',
      'after=key_000000000000000000000000',
      'after=nope',
    ]) {
      expectError(await api('GET', `/api/v1/keys?${query}`, { key: boss.key }), 400, 'invalid_parameter');
    }
  });

  it('takes keys revoked more than 30 days ago out of GET /keys when the account creates a key; they still get 403', async () => {
    const boss = await admin();
    const old = (await createKey(boss, { mode: 'live' })).body;
    const recent = (await createKey(boss, { mode: 'live' })).body;
    expect((await revokeKey(boss, old.id)).status).toBe(200);
    expect((await revokeKey(boss, recent.id)).status).toBe(200);
    await ageRevocation(old.id);
    expect(ids(await listKeys(boss))).toEqual(ids([boss, old, recent]));
    expect((await createKey(boss, { mode: 'live' })).status).toBe(201);
    await expectPruned(boss, old, recent);
  });

  it('prunes on revoke and roll too, so an account that stops creating keys does not grow its key set', async () => {
    const boss = await admin();
    const [a, b, c, d] = await Promise.all(
      [0, 1, 2, 3].map(async () => (await createKey(boss, { mode: 'live' })).body),
    );
    for (const key of [a, b]) expect((await revokeKey(boss, key.id)).status).toBe(200);
    await ageRevocation(a.id);
    expect((await revokeKey(boss, c.id)).status).toBe(200);
    expect(ids(await listKeys(boss))).toEqual(ids([boss, b, c, d]));
    await ageRevocation(b.id);
    expect((await rollKey(boss, d.id)).status).toBe(201);
    await expectPruned(boss, b, c);
  });

  it('prunes a bounded part of a large key set per revoke; successive revokes prune it all', async () => {
    const boss = await admin();
    const redis = await testRedis();
    const store = createKeyStore(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS);
    const names = keyStoreKeys(env.REDIS_KEY_PREFIX);
    const old: string[] = [];
    for (let i = 0; i < 3 * PRUNE_BATCH; i++) {
      old.push((await store.create({ mode: 'live', tier: 'free', accountId: boss.account_id })).id);
    }
    const hashes = await Promise.all(old.map((id) => redis.get(names.hashById(id))));
    await Promise.all(
      hashes.map((hash) => redis.hset(names.byHash(hash!), { status: 'revoked', revoked_at: daysAgo(31) })),
    );
    const setSize = () => redis.scard(names.accountKeys(boss.account_id));
    expect(await setSize()).toBe(old.length + 1);
    // Revoking again (idempotent, 200) prunes too: one call takes some of the old ids, not all.
    expect((await revokeKey(boss, old[0]!)).status).toBe(200);
    const afterOne = await setSize();
    expect(afterOne).toBeLessThan(old.length + 1);
    expect(afterOne).toBeGreaterThan(1);
    for (let calls = 1; (await setSize()) > 1 && calls < 30; calls++) {
      expect((await revokeKey(boss, old[0]!)).status).toBe(200);
    }
    expect(await setSize()).toBe(1);
    expect(ids(await listKeys(boss))).toEqual([boss.id]);
  });

  it("fills the admin set once from an account's keys that predate it, so a mixed account is not refused", async () => {
    const boss = await admin();
    const redis = await testRedis();
    const account = keyStoreKeys(env.REDIS_KEY_PREFIX).account(boss.account_id);
    const adminSet = keyStoreKeys(env.REDIS_KEY_PREFIX).accountAdmins(boss.account_id);
    // As written before the admin set existed: the account's first admin key is not in it.
    await redis.hdel(account, 'admins_indexed');
    await redis.srem(adminSet, boss.id);
    const deputy = (await createKey(boss, { mode: 'live', role: 'admin' })).body;
    expect(await redis.smembers(adminSet)).toEqual([deputy.id]);
    // boss remains an admin key of the account, so deputy may go.
    expect((await revokeKey(boss, deputy.id)).status).toBe(200);
    expect(await redis.smembers(adminSet)).toEqual([boss.id]);
    expect(await redis.hget(account, 'admins_indexed')).toBe('1');
    expectError(await revokeKey(boss, boss.id), 409, 'last_admin_key');
  });
});
