// Key management over the API by admin keys (contract "API keys"; docs/auth.md "Managing keys over
// the API"): create, list, revoke, roll with a grace period; the scope rules (account, mode, tier,
// role), the no-lock-out rule, and revocation seen by a second API process on its next request.
// Secrets in answers and logs: keys-api-security.test.ts; bounded key sets: keys-api-bounded.test.ts.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_KEY_CHANGES_PER_DAY } from '../../ingest/keys/service.ts';
import { quotaKey, utcDay } from '../../ingest/quota.ts';
import { api, createTestKey, env, testRedis } from '../support/api.ts';
import { gatewayForFile } from '../support/auth.ts';
import {
  usagePath,
  expectError,
  admin,
  createKey,
  listKeys,
  revokeKey,
  rollKey,
  ids,
  getOn,
} from '../support/keys-api.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const analyticsPath = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';

// A second API process: a revocation or roll must be seen there on its next request.
const second = gatewayForFile();

describe('key management by an admin key (happy)', () => {
  it('creates a key shown once, lists the account keys without secrets, revokes it', async () => {
    const boss = await admin({ tier: 'business' });
    const created = await createKey(boss, { mode: 'live', name: 'ci uploader', tier: 'pro' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      account_id: boss.account_id,
      mode: 'live',
      tier: 'pro',
      role: 'standard',
      name: 'ci uploader',
      status: 'active',
      rate_limit: 60,
      last_used_at: null,
      revoked_at: null,
      expires_at: null,
    });
    expect(created.body.id).toMatch(/^key_[0-9a-f]{24}$/);
    expect(created.body.key).toMatch(/^svc_live_[0-9A-Za-z]{38}$/);
    expect(created.body.key.startsWith(created.body.prefix.replace('…', ''))).toBe(true);
    const key: string = created.body.key;

    // The new key works, with its own (lower) tier.
    expect((await api('GET', usagePath, { key })).status).toBe(200);
    expectError(await api('GET', analyticsPath, { key }), 403, 'insufficient_tier');

    // Defaults: the creating key's tier, role standard.
    const test = await createKey(boss, { mode: 'test' });
    expect(test.status).toBe(201);
    expect(test.body).toMatchObject({ mode: 'test', tier: 'business', role: 'standard', name: '' });
    expect(test.body.key).toMatch(/^svc_test_/);

    const listed = await listKeys(boss);
    // Oldest first (keys created in the same millisecond in either order).
    expect(ids(listed)).toEqual(ids([boss, created.body, test.body]));
    expect(listed.map((k) => k.created_at)).toEqual(listed.map((k) => k.created_at).sort());
    const listedNew = listed.find((k) => k.id === created.body.id)!;
    expect(listedNew).toMatchObject({ prefix: created.body.prefix, tier: 'pro' });
    expect(listedNew.last_used_at).toEqual(expect.any(String));
    for (const record of listed) expect(record).not.toHaveProperty('key');
    const text = JSON.stringify(listed);
    expect(text).not.toContain(key);
    expect(text).not.toContain(createHash('sha256').update(key).digest('hex'));

    const revoked = await revokeKey(boss, created.body.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ id: created.body.id, status: 'revoked' });
    expectError(await api('GET', usagePath, { key }), 403, 'revoked_api_key');
    const after = (await listKeys(boss)).find((k) => k.id === created.body.id)!;
    expect(after).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    // Idempotent, like the CLI: the first revoked_at stays.
    expect((await revokeKey(boss, created.body.id)).body).toEqual({ id: created.body.id, status: 'revoked' });
    expect((await listKeys(boss)).find((k) => k.id === created.body.id)!.revoked_at).toBe(after.revoked_at);
  });

  it('an admin key may create another admin key, which manages the same account', async () => {
    const boss = await admin();
    const deputy = await createKey(boss, { mode: 'live', role: 'admin', name: 'deputy' });
    expect(deputy.status).toBe(201);
    expect(deputy.body.role).toBe('admin');
    const deputyKey = { ...boss, id: deputy.body.id, key: deputy.body.key };
    expect(ids(await listKeys(deputyKey))).toEqual(ids([boss, deputy.body]));
  });

  it('a revocation is refused on the very next request, in another API process too', async () => {
    const boss = await admin();
    const a = (await createKey(boss, { mode: 'live' })).body;
    const b = (await createKey(boss, { mode: 'live' })).body;
    expect((await getOn(second().baseUrl, usagePath, a.key)).status).toBe(200);
    expect((await revokeKey(boss, a.id)).status).toBe(200); // on the main process
    const refused = await getOn(second().baseUrl, usagePath, a.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('revoked_api_key');

    expect((await api('GET', usagePath, { key: b.key })).status).toBe(200);
    const viaSecond = await fetch(`${second().baseUrl}/api/v1/keys/${b.id}`, {
      method: 'DELETE',
      headers: { 'X-API-Key': boss.key },
    });
    expect(viaSecond.status).toBe(200);
    expectError(await api('GET', usagePath, { key: b.key }), 403, 'revoked_api_key');
  });

  it('rolls a key: same name, tier and role; the old key works until expires_in_hours, then is refused everywhere', async () => {
    const boss = await admin({ tier: 'enterprise' });
    const old = (await createKey(boss, { mode: 'live', name: 'rotating', tier: 'pro' })).body;
    const before = Date.now();
    const rolled = await rollKey(boss, old.id, { expires_in_hours: 0.001 }); // 3.6 s
    expect(rolled.status).toBe(201);
    expect(rolled.body).toMatchObject({
      name: 'rotating',
      tier: 'pro',
      role: 'standard',
      mode: 'live',
      status: 'active',
      account_id: boss.account_id,
    });
    expect(rolled.body.id).not.toBe(old.id);
    expect(rolled.body.key).toMatch(/^svc_live_/);
    expect(rolled.body.replaces.id).toBe(old.id);
    const expiresAt = Date.parse(rolled.body.replaces.expires_at);
    expect(expiresAt - before).toBeGreaterThanOrEqual(3_000);
    expect(expiresAt - before).toBeLessThan(4_600);

    // Within the grace period both keys work, on both processes; the old one says until when.
    const usage = await api('GET', usagePath, { key: old.key });
    expect(usage.status).toBe(200);
    expect(usage.body.key).toMatchObject({ role: 'standard', expires_at: rolled.body.replaces.expires_at });
    expect((await getOn(second().baseUrl, usagePath, old.key)).status).toBe(200);
    expect((await api('GET', usagePath, { key: rolled.body.key })).status).toBe(200);
    const listed = (await listKeys(boss)).find((k) => k.id === old.id)!;
    expect(listed).toMatchObject({
      status: 'active',
      expires_at: rolled.body.replaces.expires_at,
      replaced_by: rolled.body.id,
    });

    // Afterwards the old key is refused with no job having run; the list shows it revoked.
    await sleep(Math.max(0, expiresAt - Date.now() + 100));
    const refused = await api('GET', usagePath, { key: old.key });
    expectError(refused, 403, 'revoked_api_key');
    expect(refused.body.error.message).toContain('rolled');
    expect((await getOn(second().baseUrl, usagePath, old.key)).status).toBe(403);
    expect((await api('GET', usagePath, { key: rolled.body.key })).status).toBe(200);
    expect((await listKeys(boss)).find((k) => k.id === old.id)).toMatchObject({
      status: 'revoked',
      revoked_at: rolled.body.replaces.expires_at,
    });
  });

  it('rolls with a 24-hour grace period by default; an admin key may roll itself', async () => {
    const boss = await admin();
    const before = Date.now();
    const rolled = await rollKey(boss, boss.id);
    expect(rolled.status).toBe(201);
    expect(rolled.body.role).toBe('admin');
    const grace = Date.parse(rolled.body.replaces.expires_at) - before;
    expect(Math.abs(grace - 24 * 3_600_000)).toBeLessThan(60_000);
    // The old admin key still works during the grace period, and so does its replacement.
    expect(ids(await listKeys(boss))).toEqual(ids([boss, rolled.body]));
    expect((await listKeys({ ...boss, key: rolled.body.key })).length).toBe(2);
  });
});

describe('key management refusals (error)', () => {
  it('caps keys created or rolled over the API per account and day: 429 quota_exceeded key_changes_per_day', async () => {
    const boss = await admin();
    const made = await createKey(boss, { mode: 'live' });
    expect(made.status).toBe(201);
    expect((await rollKey(boss, made.body.id)).status).toBe(201);
    expect((await revokeKey(boss, made.body.id)).status).toBe(200); // revoking is not counted
    const redis = await testRedis();
    const counter = quotaKey(env.REDIS_KEY_PREFIX, boss.account_id, 'live', utcDay(new Date()));
    expect(await redis.hget(counter, 'key_changes')).toBe('2');
    await redis.hset(counter, 'key_changes', MAX_KEY_CHANGES_PER_DAY);
    const before = (await listKeys(boss)).length;
    for (const refused of [await createKey(boss, { mode: 'live' }), await rollKey(boss, boss.id)]) {
      expectError(refused, 429, 'quota_exceeded');
      expect(refused.body.error.details).toMatchObject({
        quota: 'key_changes_per_day',
        limit: MAX_KEY_CHANGES_PER_DAY,
        used: MAX_KEY_CHANGES_PER_DAY,
      });
    }
    expect((await listKeys(boss)).length).toBe(before);
  });

  it("refuses with 403 scope_exceeded a lower-tier admin key revoking the account's higher-tier key", async () => {
    const top = await admin({ tier: 'enterprise' });
    const low = await admin({ tier: 'free', accountId: top.account_id });
    const refused = await revokeKey(low, top.id);
    expectError(refused, 403, 'scope_exceeded');
    expect(refused.body.error.details).toMatchObject({ field: 'tier', requested: 'enterprise' });
    expect((await api('GET', usagePath, { key: top.key })).status).toBe(200);
    expect((await revokeKey(top, low.id)).status).toBe(200); // downwards is allowed
  });

  it('refuses create, roll and revoke with 403 key_rolled to a rolled admin key in its grace period; reading still works', async () => {
    const boss = await admin({ tier: 'enterprise' });
    const rolled = await rollKey(boss, boss.id, { expires_in_hours: 1 });
    expect(rolled.status).toBe(201);
    const successor = { ...boss, id: rolled.body.id as string, key: rolled.body.key as string };
    const answers = {
      create: await createKey(boss, { mode: 'live', role: 'admin' }),
      revoke: await revokeKey(boss, successor.id),
      roll: await rollKey(boss, successor.id),
    };
    for (const [action, response] of Object.entries(answers)) {
      expectError(response, 403, 'key_rolled');
      expect(response.body.error.details, action).toMatchObject({
        expires_at: rolled.body.replaces.expires_at,
        replaced_by: successor.id,
      });
    }
    process.stdout.write(
      `[figures] rolled admin key in its grace period: create ${answers.create.status}, revoke ${answers.revoke.status}, roll ${answers.roll.status} (${answers.create.body.error.code})\n`,
    );
    expect(ids(await listKeys(boss))).toEqual(ids([boss, successor])); // nothing created
    const stillActive = (await listKeys(successor)).find((k) => k.id === successor.id);
    expect(stillActive?.status).toBe('active');
    // The replacement manages keys as before, including revoking the rolled one at once.
    expect((await revokeKey(successor, boss.id)).status).toBe(200);
  });

  it('answers 403 insufficient_role to keys without the admin role, on every /keys endpoint', async () => {
    const boss = await admin();
    for (const role of ['standard', 'portal'] as const) {
      const other = await createTestKey({ tier: 'enterprise', role, accountId: boss.account_id });
      const responses = [
        await createKey(other, { mode: 'live' }),
        await api('GET', '/api/v1/keys', { key: other.key }),
        await revokeKey(other, boss.id),
        await rollKey(other, boss.id),
      ];
      for (const response of responses) {
        expectError(response, 403, 'insufficient_role');
        expect(response.body.error.details).toEqual({ role, required_role: 'admin' });
      }
    }
    expect((await listKeys(boss)).every((k) => k.status === 'active')).toBe(true);
  });

  it('validates bodies: mode required, known values only, no unknown fields, grace in (0, 168] hours', async () => {
    const boss = await admin();
    const missing = await createKey(boss, {});
    expectError(missing, 400, 'validation_failed');
    expect(missing.body.error.details).toContainEqual(expect.objectContaining({ field: 'mode' }));
    expectError(await createKey(boss, { mode: 'live', tier: 'gold' }), 400, 'validation_failed');
    expectError(await createKey(boss, { mode: 'live', role: 'root' }), 400, 'validation_failed');
    expectError(await createKey(boss, { mode: 'live', rate_limit: 5000 }), 400, 'validation_failed');
    expectError(await createKey(boss, { mode: 'live', name: 'x'.repeat(201) }), 400, 'validation_failed');
    expectError(await createKey(boss, { mode: 'live', name: 'bad \ud800' }), 400, 'validation_failed');
    for (const hours of [0, -1, 168.5, '2']) {
      expectError(await rollKey(boss, boss.id, { expires_in_hours: hours }), 400, 'validation_failed');
    }
    expectError(
      await api('POST', `/api/v1/keys/${boss.id}/roll`, { key: boss.key, rawBody: '' }),
      415,
      'unsupported_media_type',
    );
    expect((await listKeys(boss)).length).toBe(1); // nothing was created or rolled
  });

  it('never hands out more than the acting key has: tier, role, and live keys from a test key (403 scope_exceeded)', async () => {
    const boss = await admin({ tier: 'business' });
    const tier = await createKey(boss, { mode: 'live', tier: 'enterprise' });
    expectError(tier, 403, 'scope_exceeded');
    expect(tier.body.error.details).toMatchObject({ field: 'tier', requested: 'enterprise' });
    const portal = await createKey(boss, { mode: 'live', role: 'portal' });
    expectError(portal, 403, 'scope_exceeded');
    expect(portal.body.error.details).toMatchObject({ field: 'role', requested: 'portal' });
    // Rolling hands out a new secret with the old key's powers: the same rule.
    const big = await createTestKey({ tier: 'enterprise', accountId: boss.account_id });
    expectError(await rollKey(boss, big.id), 403, 'scope_exceeded');

    const testAdmin = await admin({ mode: 'test', accountId: boss.account_id });
    const live = await createKey(testAdmin, { mode: 'live' });
    expectError(live, 403, 'scope_exceeded');
    expect(live.body.error.details).toMatchObject({ field: 'mode', requested: 'live' });
    expect((await createKey(testAdmin, { mode: 'test', role: 'admin' })).status).toBe(201);
  });

  it("a test admin key sees and manages the account's test keys only; another account's keys are 404", async () => {
    const boss = await admin();
    const testAdmin = await admin({ mode: 'test', accountId: boss.account_id });
    const testKey = await createTestKey({ mode: 'test', accountId: boss.account_id });
    const listed = await listKeys(testAdmin);
    expect(ids(listed)).toEqual(ids([testAdmin, testKey]));
    expectError(await revokeKey(testAdmin, boss.id), 404, 'not_found');
    expectError(await rollKey(testAdmin, boss.id), 404, 'not_found');
    expect((await revokeKey(testAdmin, testKey.id)).status).toBe(200);
    // The live admin key sees both modes.
    expect((await listKeys(boss)).length).toBe(3);

    const stranger = await admin();
    const strangersKey = await createTestKey({ accountId: stranger.account_id });
    expectError(await revokeKey(boss, strangersKey.id), 404, 'not_found');
    expectError(await rollKey(boss, strangersKey.id), 404, 'not_found');
    expectError(await revokeKey(boss, 'key_000000000000000000000000'), 404, 'not_found');
    expect((await listKeys(boss)).map((k) => k.id)).not.toContain(strangersKey.id);
    expect((await api('GET', usagePath, { key: strangersKey.key })).status).toBe(200);
  });

  it('refuses to revoke the last admin key that manages the account (no lock-out); rolled admin keys do not count', async () => {
    const boss = await admin();
    expectError(await revokeKey(boss, boss.id), 409, 'last_admin_key');
    expect((await api('GET', usagePath, { key: boss.key })).status).toBe(200);

    // With a second admin key, a key may revoke itself; then the other one is the last.
    const deputy = (await createKey(boss, { mode: 'live', role: 'admin' })).body;
    const deputyKey = { ...boss, id: deputy.id, key: deputy.key };
    expect((await revokeKey(boss, boss.id)).status).toBe(200);
    expectError(await api('GET', usagePath, { key: boss.key }), 403, 'revoked_api_key');
    expectError(await revokeKey(deputyKey, deputy.id), 409, 'last_admin_key');

    // A rolled admin key expires, so it is not a remaining admin: its replacement is the last.
    const rolled = (await rollKey(deputyKey, deputy.id)).body;
    const replacement = { ...boss, id: rolled.id, key: rolled.key };
    expectError(await revokeKey(replacement, rolled.id), 409, 'last_admin_key');
    // Revoking the rolled one early is fine: the replacement stays.
    expect((await revokeKey(replacement, deputy.id)).status).toBe(200);
  });

  it('a test admin key does not keep live keys manageable; a live one keeps test keys manageable', async () => {
    const boss = await admin();
    const testAdmin = await admin({ mode: 'test', accountId: boss.account_id });
    expectError(await revokeKey(boss, boss.id), 409, 'last_admin_key');
    expect((await revokeKey(testAdmin, testAdmin.id)).status).toBe(200);
  });

  it('two admin keys revoking each other at once: exactly one of them goes', async () => {
    const a = await admin();
    const b = { ...a, ...(await createKey(a, { mode: 'live', role: 'admin' })).body };
    const results = await Promise.all([revokeKey(a, b.id), revokeKey(b, a.id)]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const statuses = [
      (await api('GET', usagePath, { key: a.key })).status,
      (await api('GET', usagePath, { key: b.key })).status,
    ].sort();
    expect(statuses).toEqual([200, 403]);
  });

  it('rolls a key once only; revoked keys cannot be rolled (409 key_not_rollable)', async () => {
    const boss = await admin();
    const key = (await createKey(boss, { mode: 'live' })).body;
    expect((await rollKey(boss, key.id)).status).toBe(201);
    expectError(await rollKey(boss, key.id), 409, 'key_not_rollable');
    const other = (await createKey(boss, { mode: 'live' })).body;
    await revokeKey(boss, other.id);
    expectError(await rollKey(boss, other.id), 409, 'key_not_rollable');
  });

  it('caps an account at 100 active keys over the API (409 limit_exceeded)', async () => {
    const boss = await admin();
    await Promise.all(Array.from({ length: 99 }, () => createTestKey({ accountId: boss.account_id })));
    const refused = await createKey(boss, { mode: 'test' });
    expectError(refused, 409, 'limit_exceeded');
    expect(refused.body.error.details).toEqual({ limit: 100 });
  });
});
