// A route declared once (common/http/route.ts) over real HTTP: its query is validated before the
// handler runs (a 400 naming the parameter, with the request id), the handler gets the parsed
// values, protected routes need a key, and the same declaration is its OpenAPI operation.
import { Router } from 'express';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../common/auth/authenticate.ts';
import type { KeyStore } from '../../common/auth/key-store.ts';
import { createApiApp, listen, type RunningServer } from '../../common/http/app.ts';
import { defineRoute, mountRoutes, parseQueryWith, registerRoutes } from '../../common/http/route.ts';
import { createLogger } from '../../common/logger.ts';
import { createOpenApiRegistry } from '../../common/openapi/registry.ts';

const pageQuery = z.object({ limit: z.coerce.number().int().min(1).max(10).optional() });
const calls: unknown[] = [];
const routes = [
  defineRoute<{ prefix: string }, z.output<typeof pageQuery>>({
    method: 'get',
    path: '/things/{thing_id}',
    operationId: 'getThing',
    summary: 'A thing',
    access: 'public',
    query: { schema: pageQuery, parse: parseQueryWith(pageQuery) },
    responses: { 200: { description: 'The thing' } },
    errors: [400],
    async handler({ params, query }, deps) {
      calls.push(query);
      return { status: 200, body: { id: `${deps.prefix}${params.thing_id}`, limit: query.limit ?? null } };
    },
  }),
  defineRoute<{ prefix: string }>({
    method: 'post',
    path: '/things',
    operationId: 'createThing',
    summary: 'Create a thing',
    access: { permission: 'listings:write' },
    body: { schema: z.object({ name: z.string() }) },
    responses: { 201: { description: 'Created' } },
    handler: async ({ body }) => ({ status: 201, body }),
  }),
];

let server: RunningServer;
let base: string;

beforeAll(async () => {
  const router = Router();
  // No key is ever looked up: the protected route is only called without one.
  mountRoutes(router, authenticate({} as KeyStore), routes, { prefix: 't-' });
  const app = createApiApp({
    logger: createLogger('error', {}, () => {}),
    routers: [router],
    health: { report: async () => ({ status: 'ok', components: {} }) },
  });
  server = await listen(app, 0, { host: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}/api/v1`;
});

afterAll(async () => {
  await server?.close();
});

describe('defineRoute over HTTP', () => {
  it('happy: the handler gets the path parameter and the parsed query', async () => {
    const response = await fetch(`${base}/things/7?limit=3`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: 't-7', limit: 3 });
  });

  it('error: an invalid query is a 400 invalid_parameter naming the parameter; the handler never runs', async () => {
    const before = calls.length;
    const response = await fetch(`${base}/things/7?limit=11`);
    const body = (await response.json()) as {
      error: { code: string; request_id: string; details: { parameter: string }[] };
    };
    expect(response.status).toBe(400);
    expect(body.error.code).toBe('invalid_parameter');
    expect(body.error.details[0]!.parameter).toBe('limit');
    expect(body.error.request_id).toBe(response.headers.get('x-request-id'));
    expect(calls.length).toBe(before);
  });

  it('security: a protected route without a key is a 401 missing_api_key', async () => {
    const response = await fetch(`${base}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"a"}',
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('missing_api_key');
  });

  it('happy: the same declarations are the OpenAPI operations', () => {
    const registry = createOpenApiRegistry({ title: 't', version: '1' });
    registerRoutes(registry, routes);
    const paths = registry.document().paths as Record<string, Record<string, Record<string, unknown>>>;
    expect(paths['/things/{thing_id}']!.get).toMatchObject({
      operationId: 'getThing',
      security: [],
      parameters: [{ name: 'limit', in: 'query', required: false }],
    });
    expect(Object.keys(paths['/things/{thing_id}']!.get!.responses as object)).toEqual(['200', '400']);
    expect(paths['/things']!.post).toMatchObject({
      operationId: 'createThing',
      requestBody: { required: true },
    });
    expect(Object.keys(paths['/things']!.post!.responses as object)).toEqual(['201', '401', '403', '429']);
  });
});
