// Webhook registration: record shape, secret shown once, URL rules (SSRF, https for live keys,
// credentials), the per-account cap, and isolation between accounts and modes.
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createTestKey, env } from '../support/api.ts';

const receiverUrl = 'http://127.0.0.1:9/hook'; // inside the test run's OUTBOUND_ALLOW_CIDRS; never called

describe('webhook registration (happy)', () => {
  it('returns the record with a whsec_ secret once, lists it without the secret, deletes it', async () => {
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/webhooks/register', {
      key,
      body: { url: receiverUrl, description: 'batch callbacks' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      url: receiverUrl,
      events: ['listings.batch.completed'],
      status: 'enabled',
      mode: 'live',
      description: 'batch callbacks',
      disabled_reason: null,
    });
    expect(created.body.id).toMatch(/^wh_[0-9a-f]{24}$/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Date.parse(created.body.created_at)).not.toBeNaN();

    const list = await api('GET', '/api/v1/webhooks', { key });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0].id).toBe(created.body.id);
    expect(list.body.data[0]).not.toHaveProperty('secret');
    const one = await api('GET', `/api/v1/webhooks/${created.body.id}`, { key });
    expect(one.body).not.toHaveProperty('secret');

    const deleted = await api('DELETE', `/api/v1/webhooks/${created.body.id}`, { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, status: 'deleted' });
    expect((await api('GET', '/api/v1/webhooks', { key })).body.data).toHaveLength(0);
    expect((await api('DELETE', `/api/v1/webhooks/${created.body.id}`, { key })).status).toBe(404);
  });

  it('lets a test key register http URLs, kept apart from the live webhooks of the account', async () => {
    const live = await createTestKey();
    const test = await createTestKey({ mode: 'test', accountId: live.account_id });
    const created = await api('POST', '/api/v1/webhooks/register', {
      key: test.key,
      body: { url: 'http://93.184.216.34/hook' },
    });
    expect(created.status).toBe(201);
    expect(created.body.mode).toBe('test');
    expect((await api('GET', '/api/v1/webhooks', { key: live.key })).body.data).toHaveLength(0);
    expect((await api('GET', '/api/v1/webhooks', { key: test.key })).body.data).toHaveLength(1);
  });
});

describe('webhook test event (happy)', () => {
  it('queues a test event for a body-less POST, without Content-Type or body', async () => {
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl } });
    const sent = await api('POST', `/api/v1/webhooks/${created.body.id}/test`, { key });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ type: 'webhook.test', webhook_id: created.body.id });
  });
});

describe('webhook registration (error)', () => {
  it.each([
    ['http://93.184.216.34/hook', 'https_required'],
    ['https://user:pw@hooks.example.com/x', 'credentials_in_url'],
    ['ftp://hooks.example.com/x', 'unsupported_scheme'],
    ['not a url', 'invalid_url'],
  ])('refuses %s with %s', async (url, code) => {
    const { key } = await createTestKey();
    const refused = await api('POST', '/api/v1/webhooks/register', { key, body: { url } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(refused.body.error.details[0]).toMatchObject({ field: 'url', code });
  });

  it('refuses unknown event names and unknown fields', async () => {
    const { key } = await createTestKey();
    const bad = await api('POST', '/api/v1/webhooks/register', {
      key,
      body: { url: receiverUrl, events: ['listings.everything'] },
    });
    expect(bad.status).toBe(400);
    const extra = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl, x: 1 } });
    expect(extra.status).toBe(400);
  });

  it('caps an account at 10 webhooks (409 limit_exceeded)', async () => {
    const { key } = await createTestKey();
    for (let i = 0; i < 10; i++) {
      const ok = await api('POST', '/api/v1/webhooks/register', { key, body: { url: `${receiverUrl}${i}` } });
      expect(ok.status).toBe(201);
    }
    const over = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl } });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('limit_exceeded');
  });

  it('requires the webhooks:manage permission (free tier gets 403)', async () => {
    const { key } = await createTestKey({ tier: 'free' });
    const denied = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl } });
    expect(denied.status).toBe(403);
  });
});

describe('webhook registration (security)', () => {
  it.each([
    'http://10.0.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://192.168.1.1/',
    'https://172.16.0.1/',
    'https://100.64.0.1/',
    'https://[::1]/',
    'https://[fd00::1]/',
    'https://[::ffff:10.0.0.1]/',
    'http://0.0.0.0/',
  ])('refuses the non-public target %s', async (url) => {
    const { key } = await createTestKey({ mode: 'test' });
    const refused = await api('POST', '/api/v1/webhooks/register', { key, body: { url } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0]).toMatchObject({ field: 'url', code: 'forbidden_address' });
  });

  it("one account can neither see, test nor delete another's webhook", async () => {
    const owner = await createTestKey();
    const other = await createTestKey();
    const created = await api('POST', '/api/v1/webhooks/register', {
      key: owner.key,
      body: { url: receiverUrl },
    });
    const id = created.body.id as string;
    expect((await api('GET', '/api/v1/webhooks', { key: other.key })).body.data).toHaveLength(0);
    expect((await api('GET', `/api/v1/webhooks/${id}`, { key: other.key })).status).toBe(404);
    expect((await api('POST', `/api/v1/webhooks/${id}/test`, { key: other.key, body: {} })).status).toBe(404);
    const del = await api('DELETE', `/api/v1/webhooks/${id}`, { key: other.key });
    expect(del.status).toBe(404);
    expect(del.body.error.code).toBe('not_found');
    expect((await api('GET', `/api/v1/webhooks/${id}`, { key: owner.key })).status).toBe(200);
  });

  // The test run opens 127.0.0.0/8 without a port range, which must not open the
  // ports of the service's own components (ClickHouse's HTTP port would run a GET's ?query=).
  it("refuses the ports of the service's own components inside an allowed range", async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const ports = {
      clickhouse: new URL(env.CLICKHOUSE_URL).port,
      kafka: env.KAFKA_BROKERS[0]!.split(':').pop()!,
      redis: new URL(env.REDIS_URL).port,
      api: new URL(baseUrl()).port,
    };
    for (const [component, port] of Object.entries(ports)) {
      const refused = await api('POST', '/api/v1/webhooks/register', {
        key,
        body: { url: `http://127.0.0.1:${port}/hook` },
      });
      expect([component, refused.status]).toEqual([component, 400]);
      expect(refused.body.error.details[0]).toMatchObject({ field: 'url', code: 'forbidden_address' });
    }
    // Any other port of the allowed range stays open (the local receivers of the tests).
    const open = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiverUrl } });
    expect(open.status).toBe(201);
  });

  // The answer must not tell a caller what a name resolves to (internal DNS probing).
  it('says "not a public address" without the resolved address', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const port = new URL(env.CLICKHOUSE_URL).port;
    const refused = await api('POST', '/api/v1/webhooks/register', {
      key,
      body: { url: `http://localhost:${port}/hook` },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0]).toMatchObject({ field: 'url', code: 'forbidden_address' });
    expect(refused.body.error.details[0].message).toMatch(/not a public address/);
    expect(JSON.stringify(refused.body)).not.toMatch(/127\.0\.0\.1|::1|resolves to/);
  });
});
