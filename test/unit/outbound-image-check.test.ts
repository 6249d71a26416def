// The image check rules against a real local server: HEAD, GET fallback, image/* required,
// non-public targets refused without a connection.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy, createOutboundClient, type Resolver } from '../../common/outbound/index.ts';
import { checkImage } from '../../stream/images/check.ts';
import { createFairPool } from '../../stream/images/fair-pool.ts';
import { createLimiter } from '../../stream/images/limiter.ts';
import { createImagePools } from '../../stream/images/pools.ts';
import { setTimeout as sleep } from 'node:timers/promises';

let server: http.Server;
let port = 0;
let connections = 0;
const seen: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.range ?? ''}`.trim());
    if (req.url === '/a.jpg') res.writeHead(200, { 'content-type': 'image/jpeg' }).end();
    else if (req.url === '/page') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end();
    else if (req.url === '/nohead.png' && req.method === 'HEAD') res.writeHead(405).end();
    else if (req.url === '/nohead.png') res.writeHead(206, { 'content-type': 'image/png' }).end('x');
    else res.writeHead(404).end();
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const resolver: Resolver = async (name) => {
  if (name === 'img.example.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

describe('image check', () => {
  const open = createOutboundClient({ policy: createAddressPolicy(['127.0.0.1/32']), resolver });
  const url = (path: string) => `http://img.example.test:${port}${path}`;

  it('happy: accepts a 2xx image/* answer to HEAD', async () => {
    const result = await checkImage(open, url('/a.jpg'), 2_000);
    expect(result).toMatchObject({
      method: 'HEAD',
      is_reachable: 1,
      status_code: 200,
      content_type: 'image/jpeg',
      is_ok: 1,
    });
  });

  it('happy: falls back to a one-byte ranged GET when HEAD is refused', async () => {
    const result = await checkImage(open, url('/nohead.png'), 2_000);
    expect(result).toMatchObject({ method: 'GET', status_code: 206, content_type: 'image/png', is_ok: 1 });
    expect(seen).toContain('GET /nohead.png bytes=0-0');
  });

  it('error: fails non-images and missing images', async () => {
    expect(await checkImage(open, url('/page'), 2_000)).toMatchObject({
      is_reachable: 1,
      content_type: 'text/html',
      is_ok: 0,
      error: 'not an image: text/html',
    });
    expect(await checkImage(open, url('/missing.jpg'), 2_000)).toMatchObject({ status_code: 404, is_ok: 0 });
  });

  it('security: refuses private targets without connecting', async () => {
    const closed = createOutboundClient({ policy: createAddressPolicy([]), resolver });
    const before = connections;
    const result = await checkImage(closed, url('/a.jpg'), 2_000);
    expect(result).toMatchObject({ method: 'none', is_reachable: 0, is_ok: 0 });
    expect(result.error).toMatch(/refused: forbidden_address/);
    expect(connections).toBe(before);
  });
});

describe('image check limiter', () => {
  it('keeps at most perKey tasks per host and total overall', async () => {
    const limit = createLimiter(3, 1).run;
    let running = 0;
    let peak = 0;
    const perHost = new Map<string, number>();
    let hostPeak = 0;
    const task = (host: string) =>
      limit(host, async () => {
        running++;
        perHost.set(host, (perHost.get(host) ?? 0) + 1);
        peak = Math.max(peak, running);
        hostPeak = Math.max(hostPeak, perHost.get(host)!);
        await sleep(10);
        running--;
        perHost.set(host, perHost.get(host)! - 1);
      });
    await Promise.all(['a', 'a', 'a', 'b', 'b', 'c', 'd', 'e'].map(task));
    expect(peak).toBe(3);
    expect(hostPeak).toBe(1);
  });

  it('starts tasks of one host in arrival order and lets hosts take turns', async () => {
    const limit = createLimiter(1, 1).run;
    const order: string[] = [];
    const task = (host: string, n: number) =>
      limit(host, async () => {
        order.push(`${host}${n}`);
        await new Promise((resolve) => setImmediate(resolve));
      });
    await Promise.all([task('a', 1), task('a', 2), task('a', 3), task('b', 1), task('b', 2)]);
    // a1 starts at once; then a and b alternate, a first (its queue formed first).
    expect(order).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
  });

  it('runs every task of a long single-host queue, passing results and errors through', async () => {
    const limit = createLimiter(16, 2).run;
    const results = await Promise.allSettled(
      Array.from({ length: 20_000 }, (_, i) =>
        limit('img.example.com', async () => {
          if (i % 1000 === 999) throw new Error(`task ${i}`);
          return i;
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(19_980);
    expect(results[5]).toEqual({ status: 'fulfilled', value: 5 });
    expect(results[999]).toMatchObject({ status: 'rejected', reason: new Error('task 999') });
  });

  it('abort rejects every waiting and later task at once; running ones finish', async () => {
    const limiter = createLimiter(2, 1);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = limiter.run('a', () => gate.then(() => 'done'));
    const waiting = Array.from({ length: 1_000 }, () => limiter.run('a', async () => 'never'));
    limiter.abort(new Error('stopping'));
    const settled = await Promise.allSettled(waiting);
    expect(settled.every((r) => r.status === 'rejected' && r.reason.message === 'stopping')).toBe(true);
    await expect(limiter.run('b', async () => 'late')).rejects.toThrow('stopping');
    release();
    await expect(running).resolves.toBe('done');
  });
});

describe('fair image pools', () => {
  it('a newcomer starts at once while another account has a long queue; a lone account keeps share slots free', async () => {
    const pool = createFairPool(8, 2);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const busy = Array.from({ length: 50 }, () => pool.run('a', () => gate));
    await sleep(0);
    expect(pool.running('a')).toBe(6); // 8 − 2 kept free
    let started = false;
    const newcomer = pool.run('b', async () => {
      started = true;
    });
    await newcomer;
    expect(started).toBe(true);
    release();
    await Promise.all(busy);
  });

  it('slots that free up go to accounts below their share first, until every busy account has its share', async () => {
    const pool = createFairPool(8, 2);
    const gates = new Map<string, (() => void)[]>();
    const run = (key: string) =>
      pool.run(
        key,
        () => new Promise<void>((resolve) => gates.set(key, [...(gates.get(key) ?? []), resolve])),
      );
    const keys = ['a', 'b', 'c', 'd'];
    const all = keys.flatMap((key) => Array.from({ length: 5 }, () => run(key)));
    const counts = () => keys.map((key) => pool.running(key));
    await sleep(0);
    // a came first and borrowed idle slots (8 − 2 kept free); b, c took their share and the rest.
    expect(counts()).toEqual([5, 2, 1, 0]);
    const finishOneOf = async (key: string) => {
      gates.get(key)!.shift()!();
      await sleep(0);
    };
    await finishOneOf('a'); // → c (below its share, its turn first)
    await finishOneOf('a'); // → d
    await finishOneOf('a'); // → d
    expect(counts()).toEqual([2, 2, 2, 2]);
    await finishOneOf('b'); // everyone at its share, no room to lend (2 kept free): turns
    const late = run('e');
    await finishOneOf('c'); // → e, new and below its share, before a, b, c or d get more
    expect(pool.running('e')).toBe(1);
    for (let round = 0; round < 20; round++) {
      for (const resolvers of gates.values()) while (resolvers.length) resolvers.shift()!();
      await sleep(0);
    }
    await Promise.all([...all, late]);
  });

  it('limits requests per resolved address, whatever names point at it, and keeps other accounts moving', async () => {
    // Tenant A: twenty images under twenty names of one hanging server (wildcard DNS); tenant B: one
    // image on another server. Keyed on the host name, A's names each got a limit, A held every slot
    // and B waited for one of A's requests to end (a whole timeout in production).
    let open = 0;
    let peak = 0;
    const hanging = http.createServer((_req, res) => {
      open++;
      peak = Math.max(peak, open);
      setTimeout(() => {
        open--;
        res.writeHead(200, { 'content-type': 'image/jpeg' }).end();
      }, 1_000);
    });
    const fast = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end());
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => fast.listen(0, '127.0.0.2', resolve));
    const slowPort = (hanging.address() as AddressInfo).port;
    const fastPort = (fast.address() as AddressInfo).port;
    const pools = createImagePools({
      IMAGE_CHECK_CONCURRENCY: 16,
      IMAGE_CHECK_PER_ACCOUNT: 4,
      IMAGE_CHECK_PER_HOST: 2,
    });
    const wildcard: Resolver = async (name) => {
      if (name.endsWith('.wild.test')) return [{ address: '127.0.0.1', family: 4 }];
      if (name === 'b.example.test') return [{ address: '127.0.0.2', family: 4 }];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const client = createOutboundClient({
      policy: createAddressPolicy(['127.0.0.0/8']),
      resolver: wildcard,
      connectSlot: pools.perAddress,
    });
    const tenantA = Array.from({ length: 20 }, (_, i) =>
      pools.accounts.run('acct-a', () =>
        checkImage(client, `http://a${i}.wild.test:${slowPort}/x.jpg`, 5_000),
      ),
    );
    try {
      await sleep(50);
      const started = Date.now();
      const tenantB = await pools.accounts.run('acct-b', () =>
        checkImage(client, `http://b.example.test:${fastPort}/b.png`, 5_000),
      );
      expect(tenantB.is_ok).toBe(1);
      expect(Date.now() - started).toBeLessThan(500); // not behind A's one-second requests
      await sleep(1_200);
      expect(peak).toBe(2); // twenty names, one address: two at a time
    } finally {
      pools.abort(new Error('test over'));
      await Promise.allSettled(tenantA);
      for (const server of [hanging, fast]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }
  });
});
