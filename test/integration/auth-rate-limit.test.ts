// Rate limiting (spec §8: 60 requests per minute per key): per key, across endpoints and
// processes, atomic in Redis. A second gateway process shares the limit through Redis.
import { describe, expect, it } from 'vitest';
import { api, baseUrl, createTestKey } from '../support/api.ts';
import { gatewayForFile, keysCli } from '../support/auth.ts';

const usagePath = '/api/v1/listings/bulk';
const analyticsPath = '/api/v1/analytics/pricing?city=dar_es_salaam&type=apartment';

async function get(base: string, path: string, key: string) {
  const response = await fetch(`${base}${path}`, { headers: { 'X-API-Key': key } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

const second = gatewayForFile();

describe('rate limit (happy + error)', () => {
  it('admits 60 requests of one key across endpoints, then 429 with Retry-After; another key is unaffected', async () => {
    const { key } = await createTestKey();
    const other = await createTestKey();
    for (let i = 1; i <= 60; i++) {
      const response = await api('GET', i % 2 ? usagePath : analyticsPath, { key });
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-limit')).toBe('60');
      expect(response.headers.get('ratelimit-remaining')).toBe(String(60 - i));
    }
    const limited = await api('GET', usagePath, { key });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'rate_limited', retriable: true });
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('ratelimit-reset'))).toBe(retryAfter);
    // Still limited on the other API and on the other process.
    expect((await api('GET', analyticsPath, { key })).status).toBe(429);
    expect((await get(second().baseUrl, usagePath, key)).status).toBe(429);

    const unaffected = await api('GET', usagePath, { key: other.key });
    expect(unaffected.status).toBe(200);
    expect(unaffected.headers.get('ratelimit-remaining')).toBe('59');
  });

  it('admits exactly 60 of 200 concurrent requests on one key across two processes', async () => {
    const { key } = await createTestKey();
    const bases = [baseUrl(), second().baseUrl];
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(bases[i % 2]!, i % 3 ? usagePath : analyticsPath, key)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(140);
    // Each admitted request saw a distinct remaining count: 59 … 0.
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers.get('ratelimit-remaining')))
      .sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('honours --rate-limit N of an enterprise key (created through the CLI)', async () => {
    const created = (await keysCli('create', '--mode', 'test', '--tier', 'enterprise', '--rate-limit', '5'))
      .lines[0] as { key: string; rate_limit: number };
    expect(created.rate_limit).toBe(5);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await api('GET', usagePath, { key: created.key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });
});

describe('revocation (security)', () => {
  it('takes effect immediately on every process', async () => {
    const created = (await keysCli('create', '--mode', 'live', '--tier', 'business')).lines[0] as {
      id: string;
      key: string;
    };
    expect((await get(baseUrl(), usagePath, created.key)).status).toBe(200);
    expect((await get(second().baseUrl, usagePath, created.key)).status).toBe(200);
    await keysCli('revoke', created.id);
    for (const base of bases()) {
      const response = await get(base, analyticsPath, created.key);
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('revoked_api_key');
    }
  });
});

function bases() {
  return [baseUrl(), second().baseUrl];
}
