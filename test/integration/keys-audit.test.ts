// The audit log of key changes (docs/auth.md, "Audit of key changes"): every create, roll and
// revoke, over the API or the CLI, becomes one row of the ClickHouse table key_audit_events, via
// the Redis outbox written in the same transaction as the change; GET /keys/audit reads an
// account's own rows back (the dashboard's Keys page shows them).
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { KeyAuditEvent } from '../../common/auth/key-audit.ts';
import { appendKeyAuditEvent, keyAuditDeadKey, keyAuditOutboxKey } from '../../common/auth/key-audit.ts';
import { flushKeyAudit } from '../../common/auth/key-audit-flush.ts';
import { createLogger } from '../../common/logger.ts';
import { partOf } from '../../common/redis-keys/tags.ts';
import { api, createTestKey, env, eventually, testClickHouse, testRedis } from '../support/api.ts';
import { keysCli } from '../support/auth.ts';
import { setTimeout as sleep } from 'node:timers/promises';

type Row = Omit<KeyAuditEvent, 'expires_at'> & { expires_at: string | null };

async function auditRows(accountId: string): Promise<Row[]> {
  const result = await testClickHouse().query({
    query: `SELECT * FROM key_audit_events WHERE account_id = {account:String}
            ORDER BY occurred_at, action`,
    query_params: { account: accountId },
    format: 'JSONEachRow',
  });
  return result.json<Row>();
}

/** Waits until the account has `count` audit rows (flushes run in the background). */
function rowsOf(accountId: string, count: number, timeoutMs = 20_000): Promise<Row[]> {
  return eventually(
    async () => {
      const rows = await auditRows(accountId);
      return rows.length >= count ? rows : undefined;
    },
    timeoutMs,
    `${count} audit rows of ${accountId}`,
  );
}

const silent = createLogger('error', {}, () => undefined);

describe('audit of key changes (happy)', () => {
  it('records create, roll and revoke over the API: who (account, key), what, which key, when, from where', async () => {
    const boss = await createTestKey({ role: 'admin', tier: 'business' });
    const started = Date.now() - 1_000;
    const created = await api('POST', '/api/v1/keys', {
      key: boss.key,
      body: { mode: 'test', name: 'audited', tier: 'pro' },
    });
    const rolled = await api('POST', `/api/v1/keys/${created.body.id}/roll`, {
      key: boss.key,
      body: { expires_in_hours: 2 },
    });
    const revoked = await api('DELETE', `/api/v1/keys/${rolled.body.id}`, { key: boss.key });
    expect([created.status, rolled.status, revoked.status]).toEqual([201, 201, 200]);
    // A repeated revocation changes nothing and records nothing.
    await api('DELETE', `/api/v1/keys/${rolled.body.id}`, { key: boss.key });

    const rows = await rowsOf(boss.account_id, 3);
    await sleep(1_000);
    expect(await auditRows(boss.account_id)).toHaveLength(3);
    const common = {
      source: 'api',
      account_id: boss.account_id,
      actor_key_id: boss.id,
      client_ip: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      operator: '',
      mode: 'test',
      tier: 'pro',
      role: 'standard',
      key_name: 'audited',
    };
    const byAction = Object.fromEntries(rows.map((row) => [row.action, row]));
    expect(byAction.create).toMatchObject({
      ...common,
      key_id: created.body.id,
      key_prefix: created.body.prefix,
      request_id: created.headers.get('x-request-id'),
      new_key_id: '',
      expires_at: null,
    });
    expect(byAction.roll).toMatchObject({
      ...common,
      key_id: created.body.id,
      new_key_id: rolled.body.id,
      request_id: rolled.headers.get('x-request-id'),
    });
    // DateTime is stored to the second.
    expect(Date.parse(`${byAction.roll!.expires_at!.replace(' ', 'T')}Z`)).toBe(
      Math.floor(Date.parse(rolled.body.replaces.expires_at) / 1000) * 1000,
    );
    expect(byAction.revoke).toMatchObject({
      ...common,
      key_id: rolled.body.id,
      request_id: revoked.headers.get('x-request-id'),
    });
    for (const row of rows) {
      expect(Date.parse(`${row.occurred_at.replace(' ', 'T')}Z`)).toBeGreaterThanOrEqual(
        Math.floor(started / 1000) * 1000,
      );
    }
  });

  it('records the CLI as the operator (user@host), with its role', async () => {
    const created = (await keysCli('create', '--mode', 'live', '--tier', 'pro', '--role', 'admin'))
      .lines[0] as Record<string, string>;
    expect(created).toMatchObject({ role: 'admin', tier: 'pro', status: 'active' });
    await keysCli('revoke', created.id!);
    // The CLI copied its events before it exited.
    const rows = await auditRows(created.account_id!);
    expect(rows.map((row) => row.action)).toEqual(['create', 'revoke']);
    for (const row of rows) {
      expect(row).toMatchObject({
        source: 'cli',
        account_id: created.account_id,
        actor_key_id: '',
        client_ip: '',
        request_id: '',
        key_id: created.id,
        role: 'admin',
        tier: 'pro',
      });
      expect(row.operator).toMatch(/^.+@.+$/);
    }
  });
});

/** GET /keys/audit once it lists at least `count` events. */
function auditOverApi(key: string, count: number) {
  return eventually(
    async () => {
      const response = await api('GET', '/api/v1/keys/audit', { key });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.events.length >= count
        ? (response.body.events as Record<string, unknown>[])
        : undefined;
    },
    20_000,
    `${count} audit events over the API`,
  );
}

describe('GET /keys/audit: the account reads its own key changes', () => {
  it('happy: newest first, who, what and when, without the operator and without other accounts', async () => {
    const boss = await createTestKey({ role: 'admin', tier: 'business' });
    const stranger = await createTestKey({ role: 'admin', tier: 'business' });
    const created = await api('POST', '/api/v1/keys', {
      key: boss.key,
      body: { mode: 'live', name: 'mine' },
    });
    const rolled = await api('POST', `/api/v1/keys/${created.body.id}/roll`, { key: boss.key, body: {} });
    const revoked = await api('DELETE', `/api/v1/keys/${rolled.body.id}`, { key: boss.key });
    expect([created.status, rolled.status, revoked.status]).toEqual([201, 201, 200]);
    // The stranger's own change, which boss must never see.
    expect((await api('POST', '/api/v1/keys', { key: stranger.key, body: { mode: 'live' } })).status).toBe(
      201,
    );

    const events = await auditOverApi(boss.key, 3);
    expect(events.map((e) => [e.action, e.key_id])).toEqual([
      ['revoke', rolled.body.id],
      ['roll', created.body.id],
      ['create', created.body.id],
    ]);
    expect(events[1]).toMatchObject({
      source: 'api',
      actor_key_id: boss.id,
      client_ip: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
      request_id: rolled.headers.get('x-request-id'),
      key_prefix: created.body.prefix,
      key_name: 'mine',
      mode: 'live',
      tier: 'business',
      role: 'standard',
      new_key_id: rolled.body.id,
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(events[2]).toMatchObject({ new_key_id: null, expires_at: null });
    for (const event of events) {
      expect(event).not.toHaveProperty('operator');
      expect(event).not.toHaveProperty('account_id');
      expect(event.occurred_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    }

    // Tenant isolation: the stranger sees its one event and nothing of boss's account.
    const theirs = await auditOverApi(stranger.key, 1);
    expect(theirs).toHaveLength(1);
    const bossKeys = new Set([created.body.id, rolled.body.id]);
    expect(theirs.some((e) => bossKeys.has(e.key_id as string))).toBe(false);
  });

  it('scope: a test admin key sees the changes of test keys only; a standard key gets 403', async () => {
    const boss = await createTestKey({ role: 'admin', tier: 'business' });
    const testAdmin = await createTestKey({
      role: 'admin',
      tier: 'business',
      mode: 'test',
      accountId: boss.account_id,
    });
    const live = await api('POST', '/api/v1/keys', { key: boss.key, body: { mode: 'live' } });
    const test = await api('POST', '/api/v1/keys', { key: boss.key, body: { mode: 'test' } });
    expect([live.status, test.status]).toEqual([201, 201]);
    expect((await auditOverApi(boss.key, 2)).map((e) => e.key_id).sort()).toEqual(
      [live.body.id, test.body.id].sort(),
    );
    const seenByTest = await auditOverApi(testAdmin.key, 1);
    expect(seenByTest.map((e) => e.key_id)).toEqual([test.body.id]);

    const standard = await createTestKey({ accountId: boss.account_id });
    const refused = await api('GET', '/api/v1/keys/audit', { key: standard.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('insufficient_role');
  });
});

describe('audit of key changes (error)', () => {
  it('the CLI still succeeds when ClickHouse is unreachable; the queued event reaches ClickHouse later', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      'npm',
      ['run', '--silent', 'keys', '--', 'create', '--mode', 'test', '--tier', 'free'],
      { env: { ...process.env, CLICKHOUSE_URL: 'http://127.0.0.1:1' }, timeout: 30_000 },
    );
    const created = JSON.parse(stdout.trim()) as { id: string; account_id: string; key: string };
    expect(created.key).toMatch(/^svc_test_/);
    expect(stderr).toContain('queued in Redis');
    // Copied by the next flush anywhere: another key change, or the stream worker every minute.
    const [row] = await rowsOf(created.account_id, 1, 90_000);
    expect(row).toMatchObject({ action: 'create', source: 'cli', key_id: created.id });
  }, 100_000);

  it('copies the events of every part of the outbox (parts by account)', async () => {
    const redis = await testRedis();
    const accounts: string[] = [];
    const parts = new Set<number>();
    while (parts.size < 3) {
      const account = `acct_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
      if (parts.has(partOf(account, env.REDIS_GLOBAL_PARTS))) continue;
      parts.add(partOf(account, env.REDIS_GLOBAL_PARTS));
      accounts.push(account);
    }
    const event = (account: string): KeyAuditEvent => ({
      event_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      action: 'revoke',
      source: 'cli',
      account_id: account,
      actor_key_id: '',
      client_ip: '',
      operator: 'test@host',
      request_id: '',
      key_id: 'key_000000000000000000000002',
      key_prefix: 'svc_live_AbCd…',
      key_name: '',
      mode: 'live',
      tier: 'free',
      role: 'standard',
      new_key_id: '',
      expires_at: null,
    });
    for (const account of accounts) {
      await appendKeyAuditEvent(redis, env.REDIS_KEY_PREFIX, env.REDIS_GLOBAL_PARTS, event(account));
      const part = keyAuditOutboxKey(env.REDIS_KEY_PREFIX, partOf(account, env.REDIS_GLOBAL_PARTS));
      expect((await redis.xrange(part, '-', '+')).some(([, f]) => f[1]?.includes(account))).toBe(true);
    }
    const deps = {
      redis,
      clickhouse: testClickHouse(),
      prefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
      logger: silent,
    };
    await flushKeyAudit(deps);
    for (const account of accounts) expect(await auditRows(account)).toHaveLength(1);
  });

  it('stores an event once when it is flushed twice, and sets aside an event ClickHouse refuses', async () => {
    const redis = await testRedis();
    const account = `acct_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const part = partOf(account, env.REDIS_GLOBAL_PARTS);
    const outbox = keyAuditOutboxKey(env.REDIS_KEY_PREFIX, part);
    const event: KeyAuditEvent = {
      event_id: randomUUID(),
      occurred_at: new Date().toISOString(),
      action: 'revoke',
      source: 'cli',
      account_id: account,
      actor_key_id: '',
      client_ip: '',
      operator: 'test@host',
      request_id: '',
      key_id: 'key_000000000000000000000001',
      key_prefix: 'svc_live_AbCd…',
      key_name: '',
      mode: 'live',
      tier: 'free',
      role: 'standard',
      new_key_id: '',
      expires_at: null,
    };
    const poison = { ...event, event_id: randomUUID(), mode: 'neither' };
    // A flush that died between its insert and the XDEL leaves the event to be sent again.
    await redis.xadd(outbox, '*', 'event', JSON.stringify(event));
    await redis.xadd(outbox, '*', 'event', JSON.stringify(poison));
    await redis.xadd(outbox, '*', 'event', JSON.stringify(event));
    const deps = {
      redis,
      clickhouse: testClickHouse(),
      prefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
      logger: silent,
    };
    await Promise.all([flushKeyAudit(deps), flushKeyAudit(deps)]);

    expect(await auditRows(account)).toHaveLength(1);
    // Set aside with ClickHouse's reason (by one flusher or both), never retried.
    const deadKey = keyAuditDeadKey(env.REDIS_KEY_PREFIX, part);
    const dead = (await redis.xrange(deadKey, '-', '+')).filter(([, fields]) =>
      fields[1]?.includes(poison.event_id),
    );
    expect(dead.length).toBeGreaterThan(0);
    for (const [, fields] of dead) {
      expect(fields[2]).toBe('error');
      expect(fields[3]).toMatch(/neither|Enum|Unknown element/i);
    }
    const left = (await redis.xrange(outbox, '-', '+')).map(([, fields]) => fields[1] ?? '');
    expect(left.some((json) => json.includes(event.event_id) || json.includes(poison.event_id))).toBe(false);
    await redis.xdel(deadKey, ...dead.map(([id]) => id));
  });
});
