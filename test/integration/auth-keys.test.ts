// Authentication on both APIs (spec §5): every status of the shared middleware, the contract CLI
// (create, list, revoke) as integrators run it, and proof that Redis holds no plaintext key.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { keyStoreKeys } from '../../common/auth/key-store.ts';
import { api, createTestKey, env, testRedis } from '../support/api.ts';
import { freePort, keysCli } from '../support/auth.ts';

const usagePath = '/api/v1/listings/bulk';
const analyticsPath = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';

function expectError(response: { status: number; body: any }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.body.error).toMatchObject({ code, request_id: expect.any(String) });
  expect(typeof response.body.error.message).toBe('string');
}

describe('authentication errors (error)', () => {
  it('answers 401 missing_api_key without a key, on both APIs', async () => {
    expectError(await api('GET', usagePath), 401, 'missing_api_key');
    expectError(await api('GET', analyticsPath), 401, 'missing_api_key');
  });

  it('answers 401 invalid_api_key for a malformed key or a wrong checksum', async () => {
    const { key } = await createTestKey();
    expectError(await api('GET', usagePath, { key: 'not-a-key' }), 401, 'invalid_api_key');
    expectError(
      await api('GET', usagePath, { key: key.replace('svc_live_', 'svc_prod_') }),
      401,
      'invalid_api_key',
    );
    // One changed character of the random part breaks the checksum: refused without a lookup.
    const flipped = key.slice(0, 12) + (key[12] === 'a' ? 'b' : 'a') + key.slice(13);
    expectError(await api('GET', analyticsPath, { key: flipped }), 401, 'invalid_api_key');
  });

  it('answers 401 invalid_api_key for a well-formed key that was never issued', async () => {
    const { generateApiKey } = await import('../../common/auth/api-key-format.ts');
    expectError(await api('GET', usagePath, { key: generateApiKey('live') }), 401, 'invalid_api_key');
    expectError(await api('GET', analyticsPath, { key: generateApiKey('test') }), 401, 'invalid_api_key');
  });

  it('answers 403 insufficient_tier when the tier lacks the permission (free key, analytics)', async () => {
    const { key } = await createTestKey({ tier: 'free' });
    const response = await api('GET', analyticsPath, { key });
    expectError(response, 403, 'insufficient_tier');
    expect(response.body.error.details).toMatchObject({
      tier: 'free',
      required_permission: 'analytics:read',
    });
    // The same key may read its own usage.
    expect((await api('GET', usagePath, { key })).status).toBe(200);
  });
});

describe('authentication (happy)', () => {
  it('admits an active key on both APIs with the rate-limit headers', async () => {
    const { key } = await createTestKey({ tier: 'business' });
    for (const path of [usagePath, analyticsPath]) {
      const response = await api('GET', path, { key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('60');
      expect(Number(response.headers.get('ratelimit-remaining'))).toBeLessThan(60);
      expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    }
  });
});

describe('keys CLI (contract)', () => {
  it('creates, lists and revokes keys as one JSON line each; revocation is immediate', async () => {
    const created = await keysCli('create', '--mode', 'test', '--tier', 'pro', '--name', 'cli test');
    expect(created.lines).toHaveLength(1);
    const record = created.lines[0] as Record<string, string>;
    expect(record).toMatchObject({
      mode: 'test',
      tier: 'pro',
      name: 'cli test',
      status: 'active',
      rate_limit: 60,
    });
    expect(record.key).toMatch(/^svc_test_[0-9A-Za-z]{38}$/);
    expect(record.account_id).toMatch(/^acct_[0-9a-f]{24}$/);
    expect(record.key!.startsWith(record.prefix!.replace('…', ''))).toBe(true);
    expect(record).not.toHaveProperty('hash');

    // A second key joins the same account.
    const second = (
      await keysCli('create', '--mode', 'live', '--tier', 'business', '--account', record.account_id!)
    ).lines[0] as Record<string, string>;
    expect(second.account_id).toBe(record.account_id);

    expect((await api('GET', usagePath, { key: record.key })).status).toBe(200);

    const listed = await keysCli('list');
    const mine = listed.lines.find((line) => (line as { id: string }).id === record.id) as Record<
      string,
      string
    >;
    expect(mine).toMatchObject({ id: record.id, prefix: record.prefix, status: 'active' });
    expect(listed.stdout).not.toContain(record.key);
    expect(listed.stdout).not.toContain(createHash('sha256').update(record.key!).digest('hex'));

    const revoked = await keysCli('revoke', record.id!);
    expect(revoked.stdout).toBe(`${JSON.stringify({ id: record.id, status: 'revoked' })}\n`);
    expectError(await api('GET', usagePath, { key: record.key }), 403, 'revoked_api_key');
    // The other key of the account is unaffected.
    expect((await api('GET', usagePath, { key: second.key })).status).toBe(200);
  });

  it('error: refuses --rate-limit below the enterprise tier, and unknown key ids', async () => {
    await expect(
      keysCli('create', '--mode', 'live', '--tier', 'business', '--rate-limit', '1000'),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('enterprise'),
    });
    await expect(keysCli('revoke', 'key_000000000000000000000000')).rejects.toMatchObject({ code: 1 });
  });
});

describe('keys CLI output (security)', () => {
  it('never prints the credentials of REDIS_URL when Redis is unreachable', async () => {
    const port = await freePort(); // nothing listens there
    const failure = (await promisify(execFile)('npm', ['run', '--silent', 'keys', '--', 'list'], {
      env: { ...process.env, REDIS_URL: `redis://rls:s3cret-pw@127.0.0.1:${port}` },
      timeout: 30_000,
    }).catch((error: unknown) => error)) as { code?: number; stdout: string; stderr: string };
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain(`redis://***@127.0.0.1:${port}`);
    expect(failure.stdout + failure.stderr).not.toContain('s3cret-pw');
  });
});

describe('key storage (security)', () => {
  it('keeps no plaintext key anywhere under the Redis prefix', async () => {
    const redis = await testRedis();
    const keys = [await createTestKey(), await createTestKey({ mode: 'test', tier: 'free' })];
    for (const { key } of keys) expect((await api('GET', usagePath, { key })).status).toBe(200);

    const names: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${env.REDIS_KEY_PREFIX}*`, 'COUNT', 1000);
      cursor = next;
      names.push(...batch);
    } while (cursor !== '0');
    expect(names.length).toBeGreaterThan(0);

    const anyKey = /svc_(live|test)_[0-9A-Za-z]{38}/;
    for (const name of names) {
      expect(name).not.toMatch(anyKey);
      const dumped = await redis.dumpBuffer(name);
      if (!dumped) continue; // expired meanwhile
      for (const { key } of keys) {
        expect(dumped.includes(key)).toBe(false);
        expect(dumped.includes(key.slice(9, 41))).toBe(false); // the random part alone
      }
      expect(dumped.toString('latin1')).not.toMatch(anyKey);
    }
    // What is stored instead: the SHA-256, as the record's name.
    for (const { key, id } of keys) {
      const hash = createHash('sha256').update(key).digest('hex');
      expect(await redis.hget(keyStoreKeys(env.REDIS_KEY_PREFIX).byHash(hash), 'id')).toBe(id);
    }
  });
});
