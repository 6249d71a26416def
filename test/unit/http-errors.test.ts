// The one error handler (common/http/errors.ts) over real HTTP: body-reader failures keep their 4xx,
// and any other error — even one that happens to carry a string `type` — is a logged 500.
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, listen, type RunningServer } from '../../common/http/app.ts';
import { jsonBody } from '../../common/http/json-body.ts';
import { createLogger } from '../../common/logger.ts';

const lines: Record<string, unknown>[] = [];
let server: RunningServer;
let base: string;

beforeAll(async () => {
  const router = Router();
  router.get('/typed-error', () => {
    // e.g. fetch/undici and other libraries tag their errors with a string `type`.
    throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { type: 'system' });
  });
  // What ioredis' Cluster client throws while a master fails over, reaching a route unwrapped.
  router.get('/cluster-down', () => {
    throw new Error('Too many Cluster redirections. Last error: Error: Connection is closed.');
  });
  router.get('/cluster-refused', () => {
    throw Object.assign(new Error('CLUSTERDOWN The cluster is down'), { name: 'ReplyError' });
  });
  router.post('/echo', jsonBody(1024), (req, res) => {
    res.json({ body: req.body });
  });
  const logger = createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const app = createApiApp({
    logger,
    routers: [router],
    health: { report: async () => ({ status: 'ok', components: {} }) },
  });
  server = await listen(app, 0, { host: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}/api/v1`;
});

afterAll(async () => {
  await server?.close();
});

describe('error handler (error)', () => {
  it('answers an unexpected error with a string `type` as a logged 500, not 400 invalid_json', async () => {
    const response = await fetch(`${base}/typed-error`);
    const body = (await response.json()) as { error: { code: string; request_id: string } };
    expect(response.status).toBe(500);
    expect(body.error.code).toBe('internal_error');
    const logged = lines.find((l) => l.msg === 'unhandled error' && l.request_id === body.error.request_id);
    expect(logged?.level).toBe('error');
    expect(String(logged?.error)).toContain('ECONNREFUSED');
  });

  it('answers Redis Cluster unavailability (failover) as 503 dependency_unavailable with Retry-After, not 500', async () => {
    for (const path of ['cluster-down', 'cluster-refused']) {
      const response = await fetch(`${base}/${path}`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      const body = (await response.json()) as { error: { code: string; details: unknown } };
      expect(body.error).toMatchObject({ code: 'dependency_unavailable', details: { component: 'redis' } });
    }
  });

  it("keeps the body reader's own errors as their 4xx (413 over the limit)", async () => {
    const response = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(2048) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
  });
});
