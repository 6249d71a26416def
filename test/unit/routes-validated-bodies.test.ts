// The keys, webhooks and snapshot routes validate their input in the route declaration
// (common/http/route.ts): a body or query that does not match is a 400 naming the field, with the
// request id, before the service is called; a matching one reaches the service parsed (numbers as
// numbers). The services are stand-ins that record their calls: what is under test is the route.
import type { NextFunction, Request, Response } from 'express';
import { Router } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { createApiApp, listen, type RunningServer } from '../../common/http/app.ts';
import { mountRoutes, type Route } from '../../common/http/route.ts';
import { createLogger } from '../../common/logger.ts';
import { keyRoutes } from '../../ingest/keys/router.ts';
import { lifecycleRoutes } from '../../ingest/lifecycle/routes.ts';
import { webhookRoutes } from '../../ingest/webhooks/router.ts';

const admin = {
  id: 'key_000000000000000000000001',
  account_id: 'acct_routes',
  mode: 'live',
  tier: 'enterprise',
  role: 'admin',
} as ApiKeyRecord;
const rolledAdmin = {
  ...admin,
  expires_at: '2030-01-01T00:00:00.000Z',
  replaced_by: 'key_000000000000000000000002',
} as ApiKeyRecord;

/** Every call a stand-in service or store received: [name, ...arguments]. */
const calls: unknown[][] = [];
const record =
  (name: string, answer: unknown = {}) =>
  async (...args: unknown[]) => {
    calls.push([name, ...args]);
    return answer;
  };

const keyDeps = {
  service: { create: record('create'), list: record('list'), revoke: record('revoke'), roll: record('roll') },
  clickhouse: {},
};
const webhookDeps = { register: record('register') };
const lifecycleDeps = {
  snapshots: new Proxy({}, { get: (_target, name) => record(`snapshots.${String(name)}`) }),
};

let server: RunningServer;
let base: string;

beforeAll(async () => {
  const router = Router();
  // The key is picked by a header instead of looked up: authentication is not under test.
  const authenticate = (req: Request, _res: Response, next: NextFunction) => {
    req.auth = req.get('x-test-key') === 'rolled' ? rolledAdmin : admin;
    next();
  };
  const mount = <D>(routes: Route<D>[], deps: unknown) =>
    mountRoutes(router, authenticate, routes, deps as D);
  mount(keyRoutes, keyDeps);
  mount(webhookRoutes, webhookDeps);
  mount(lifecycleRoutes, lifecycleDeps);
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

beforeEach(() => {
  calls.length = 0;
});

interface ErrorBody {
  error: { code: string; message: string; request_id: string; details: Record<string, unknown>[] };
}

async function call(method: string, path: string, body?: unknown, key = 'admin') {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-test-key': key },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    body: await response.json(),
  };
}

/** A 400 with `code` and `message`, the request id, and details naming `fields`; no service call. */
async function expectRefused(
  answer: Promise<{ status: number; requestId: string | null; body: unknown }>,
  code: string,
  message: string,
  fields: Record<string, string>[],
) {
  const { status, requestId, body } = await answer;
  const { error } = body as ErrorBody;
  expect(status).toBe(400);
  expect(error).toMatchObject({ code, message, request_id: requestId });
  expect(error.details).toMatchObject(fields);
  expect(calls).toEqual([]);
}

describe('keys routes: validated input', () => {
  it('error: an invalid create or roll body is a 400 validation_failed naming the field', async () => {
    await expectRefused(
      call('POST', '/keys', { mode: 'live', tier: 'gold', rate_limit: 5 }),
      'validation_failed',
      'Body must be {"mode", "name"?, "tier"?, "role"?}',
      [
        { field: 'tier', code: 'invalid_enum' },
        { field: 'rate_limit', code: 'unknown_field' },
      ],
    );
    await expectRefused(
      call('POST', `/keys/${admin.id}/roll`, { expires_in_hours: 169 }),
      'validation_failed',
      'Body must be {} or {"expires_in_hours"}',
      [{ field: 'expires_in_hours', code: 'out_of_range' }],
    );
  });

  it('error: a rolled key is refused with 403 key_rolled whatever body it sends', async () => {
    for (const [path, body] of [
      ['/keys', { tier: 'gold' }],
      [`/keys/${admin.id}/roll`, { expires_in_hours: -1 }],
    ] as const) {
      const { status, body: answer } = await call('POST', path, body, 'rolled');
      expect(status, path).toBe(403);
      expect((answer as ErrorBody).error.code).toBe('key_rolled');
    }
    expect(calls).toEqual([]);
  });

  it('error: GET /keys with a limit or after not as documented is a 400 invalid_parameter naming it', async () => {
    await expectRefused(
      call('GET', '/keys?limit=0&after=key_x'),
      'invalid_parameter',
      'limit must be 1–1000 and after a key id',
      [{ parameter: 'limit' }, { parameter: 'after' }],
    );
  });

  it('happy: the service gets the parsed body and query', async () => {
    expect((await call('POST', '/keys', { mode: 'test', name: 'ci' })).status).toBe(201);
    expect((await call('POST', `/keys/${admin.id}/roll`, { expires_in_hours: 1.5 })).status).toBe(201);
    expect((await call('GET', '/keys?limit=20')).status).toBe(200);
    expect(calls.map(([name, , ...rest]) => [name, rest.at(-1)])).toEqual([
      ['create', { mode: 'test', name: 'ci' }],
      ['roll', { expires_in_hours: 1.5 }],
      ['list', { limit: 20 }],
    ]);
  });
});

describe('webhook and snapshot routes: validated bodies', () => {
  it('error: an invalid registration is a 400 validation_failed naming the field', async () => {
    await expectRefused(
      call('POST', '/webhooks/register', { url: '', events: ['nope'] }),
      'validation_failed',
      'Body must be {"url", "events"?, "description"?}',
      [
        { field: 'url', code: 'empty' },
        { field: 'events.0', code: 'invalid_enum' },
      ],
    );
  });

  it('error: an invalid snapshot part is a 400 validation_failed naming the field; nothing is stored', async () => {
    await expectRefused(
      call('POST', '/listings/snapshots', { snapshot_id: 'feed-1', part: 3, parts: 2, external_ids: [] }),
      'validation_failed',
      'Invalid snapshot part',
      [{ field: 'part', message: 'part must not exceed parts' }],
    );
  });

  it('happy: the webhook service gets the parsed registration', async () => {
    const body = { url: 'https://hooks.example.com/rls', description: 'ops' };
    expect((await call('POST', '/webhooks/register', body)).status).toBe(201);
    expect(calls).toEqual([['register', admin, body]]);
  });
});
