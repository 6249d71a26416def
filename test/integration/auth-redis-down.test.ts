// Redis unreachable (fault): the shared authenticate middleware answers 503 dependency_unavailable
// with Retry-After, never a 500 and never an unlimited pass. A gateway process reaches Redis
// through a TCP proxy owned by this test, which the test cuts; the shared Redis keeps running.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestKey, env } from '../support/api.ts';
import { startGateway, type ExtraGateway } from '../support/auth.ts';
import { setTimeout as sleep } from 'node:timers/promises';

let proxy: net.Server;
const sockets = new Set<net.Socket>();
let cut = false;
let gateway: ExtraGateway;

beforeAll(async () => {
  const target = new URL(env.REDIS_URL);
  proxy = net.createServer((client) => {
    if (cut) return client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as net.AddressInfo;
  gateway = await startGateway({ REDIS_URL: `redis://127.0.0.1:${port}` });
});

afterAll(async () => {
  await gateway?.stop();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => proxy?.close(resolve));
});

describe('Redis unreachable (error)', () => {
  it('answers 503 dependency_unavailable naming redis, with Retry-After; valid keys are not let through', async () => {
    const { key } = await createTestKey();
    const path = `${gateway.baseUrl}/api/v1/listings/bulk`;
    expect((await fetch(path, { headers: { 'X-API-Key': key } })).status).toBe(200);

    cut = true;
    for (const socket of sockets) socket.destroy();
    for (let i = 0; i < 3; i++) {
      const response = await fetch(path, { headers: { 'X-API-Key': key } });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      const body = (await response.json()) as any;
      expect(body.error).toMatchObject({
        code: 'dependency_unavailable',
        retriable: true,
        details: { component: 'redis' },
      });
    }
    // Malformed keys are still refused without Redis (checksum), with 401 rather than 503.
    const malformed = await fetch(path, { headers: { 'X-API-Key': 'svc_live_nope' } });
    expect(malformed.status).toBe(401);

    cut = false; // the client reconnects by itself once Redis is reachable again
    const deadline = Date.now() + 15_000;
    let status = 0;
    while (Date.now() < deadline && status !== 200) {
      status = (await fetch(path, { headers: { 'X-API-Key': key } })).status;
      if (status !== 200) await sleep(250);
    }
    expect(status).toBe(200);
  });
});
