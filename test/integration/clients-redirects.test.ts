// The uploader and both clients never follow a redirect: a 307/308 to another port (another
// origin) would otherwise carry X-API-Key there. A local server answers every request with a
// redirect to a second one, which records what reaches it; each caller must fail with a message
// naming the Location, and the second server must never see the key. The clients are the ones
// npm test installs (infra/local/clients.mjs); no service of the stack is needed.
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ClientModule from '../../clients/typescript/src/index.js';
import { createApiClient } from '../../upload/http/client.ts';
import { RateGate } from '../../upload/http/rate-gate.ts';

const API_KEY = 'svc_live_redirect_test_key_never_forwarded';

interface Servers {
  /** The redirecting server's /api/v1. */
  baseUrl: string;
  /** X-API-Key of every request that reached the redirect target (undefined: none sent). */
  targetKeys: (string | undefined)[];
  close(): Promise<void>;
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function startServers(status: 307 | 308): Promise<Servers> {
  const targetKeys: (string | undefined)[] = [];
  const target = http.createServer((req, res) => {
    targetKeys.push(req.headers['x-api-key'] as string | undefined);
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  const targetPort = await listen(target);
  const redirector = http.createServer((req, res) => {
    req.resume();
    res.writeHead(status, { Location: `http://127.0.0.1:${targetPort}${req.url}` }).end();
  });
  const port = await listen(redirector);
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    targetKeys,
    async close() {
      await Promise.all([target, redirector].map((s) => new Promise((resolve) => s.close(resolve))));
    },
  };
}

let servers: Servers;
let permanent: Servers;
beforeAll(async () => {
  [servers, permanent] = await Promise.all([startServers(307), startServers(308)]);
});
afterAll(async () => {
  await servers?.close();
  await permanent?.close();
});

const listing = { title: 'Flat', description: 'Two rooms', property_type: 'apartment' as const, price: 1 };

describe('redirects are not followed (error)', () => {
  it('uploader: a 307 or 308 is fatal, naming the Location; the target never sees the key', async () => {
    for (const { baseUrl } of [servers, permanent]) {
      const client = createApiClient({
        baseUrl,
        apiKey: API_KEY,
        gate: new RateGate(),
        signal: new AbortController().signal,
      });
      const post = client.request('POST', '/listings/bulk', { body: '{"listings":[]}', idempotencyKey: 'k' });
      await expect(post).rejects.toThrow(/answered 30[78] redirecting to http:\/\/127\.0\.0\.1:\d+\//);
      await expect(client.request('GET', '/listings/bulk')).rejects.toThrow(/does not follow redirects/);
    }
    expect(servers.targetKeys).toEqual([]);
    expect(permanent.targetKeys).toEqual([]);
  });

  it('TypeScript client: a 307 throws RlsApiError redirect_not_followed; the target never sees the key', async () => {
    const entry = process.env.RLS_CLIENT_TS_ENTRY;
    if (!entry) throw new Error('run with `npm test`, which installs the client (RLS_CLIENT_TS_ENTRY)');
    const rls = (await import(entry)) as typeof ClientModule;
    for (const { baseUrl } of [servers, permanent]) {
      const client = rls.createClient({ baseUrl, apiKey: API_KEY, maxRetries: 0 });
      const error = await client.bulkCreateListings({ body: { listings: [listing] } }).catch((e) => e);
      expect(error).toBeInstanceOf(rls.RlsApiError);
      expect(error).toMatchObject({ code: 'redirect_not_followed' });
      expect(error.status === 307 || error.status === 308).toBe(true);
      expect(error.message).toMatch(/does not follow redirects/);
      expect((error.details as { location: string }).location).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    }
    expect(servers.targetKeys).toEqual([]);
    expect(permanent.targetKeys).toEqual([]);
  });

  it('Python client: a 307 raises RlsApiError, even with an httpx client that follows', async () => {
    const python = process.env.RLS_CLIENT_PYTHON;
    const pythonPath = process.env.RLS_CLIENT_PYTHONPATH;
    if (!python || !pythonPath) throw new Error('run with `npm test`, which installs the client');
    // httpx does not follow by default; a caller's http_client may, and must not change that.
    const script = `
import json, os, httpx
from rls_client import Client, RlsApiError
seen = []
for follows in (False, True):
    rls = Client(os.environ["BASE_URL"], os.environ["KEY"], max_retries=0,
                 http_client=httpx.Client(follow_redirects=follows))
    try:
        rls.bulk_create_listings(body={"listings": []})
        seen.append({"raised": False})
    except RlsApiError as e:
        seen.append({"raised": True, "status": e.status, "code": e.code, "message": e.message})
print(json.dumps(seen))
`;
    const { stdout } = await promisify(execFile)(python, ['-c', script], {
      env: { ...process.env, PYTHONPATH: pythonPath, BASE_URL: servers.baseUrl, KEY: API_KEY },
      timeout: 60_000,
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as { raised: boolean; code?: string }[];
    expect(seen).toHaveLength(2);
    for (const outcome of seen) {
      expect(outcome).toMatchObject({ raised: true, status: 307, code: 'redirect_not_followed' });
      expect(outcome).toMatchObject({ message: expect.stringContaining('does not follow redirects') });
    }
    expect(servers.targetKeys).toEqual([]);
  });
});
