// Health endpoints of the API processes (contract, "Health"): /healthz, /livez and
// /readyz answer anyone with a status only; component details, lag and error texts need the
// operator token (X-Operator-Token = OPERATOR_TOKEN).
import { describe, expect, it } from 'vitest';
import { api } from '../support/api.ts';

const operator = { 'X-Operator-Token': process.env.OPERATOR_TOKEN ?? '' };

describe('health endpoints (happy)', () => {
  it('answers /healthz, /livez and /readyz without a key', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) {
      const response = await api('GET', path);
      expect({ path, status: response.status, body: response.body }).toEqual({
        path,
        status: 200,
        body: { status: 'ok' },
      });
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('shows the components to the operator: all of them on /healthz, its own dependencies on /readyz', async () => {
    expect(operator['X-Operator-Token']).not.toBe('');
    const health = await api('GET', '/healthz', { headers: operator });
    expect(health.status).toBe(200);
    expect(Object.keys(health.body.components).sort()).toEqual([
      'clickhouse',
      'kafka',
      'redis',
      'stream_workers',
    ]);
    // Redis' distance to its ceiling (maxmemory, noeviction; docs/scaling.md, "Redis sizing").
    expect(health.body.components.redis.maxmemory_mb).toBeGreaterThan(0);
    expect(health.body.components.redis.used_memory_mb).toBeGreaterThanOrEqual(0);
    const ready = await api('GET', '/readyz', { headers: operator });
    expect(ready.status).toBe(200);
    expect(Object.keys(ready.body.components).sort()).toEqual(['clickhouse', 'kafka', 'redis']);
  });
});

describe('health endpoints (security)', () => {
  it('never shows components, lag or errors without the operator token', async () => {
    for (const token of [undefined, 'wrong-token', `${operator['X-Operator-Token']}x`]) {
      const headers: Record<string, string> = token === undefined ? {} : { 'X-Operator-Token': token };
      for (const path of ['/healthz', '/readyz']) {
        const response = await api('GET', path, { headers });
        expect(Object.keys(response.body)).toEqual(['status']);
      }
    }
  });
});
