// The local stack's Redis readiness (infra/local/redis.mjs): a server that answers `-LOADING` is
// loading its data set, which takes longer than the 30 s a server gets to answer at all once the
// duplicate window holds ~10 M listings, so the start waits for its PONG instead of failing.
// A fake RESP server of the test's own plays Redis.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pingRedis, waitForRedis } from '../../infra/local/redis.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

const servers: net.Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** Answers PING with -LOADING until `loadingMs` after it started, then with +PONG. */
async function fakeRedis(loadingMs: number) {
  const startedAt = Date.now();
  const answers: string[] = [];
  const server = net.createServer((socket) =>
    socket.on('data', () => {
      const loading = Date.now() - startedAt < loadingMs;
      answers.push(loading ? 'loading' : 'pong');
      socket.write(loading ? '-LOADING Redis is loading the dataset in memory\r\n' : '+PONG\r\n');
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, answers };
}

describe('local Redis readiness', () => {
  it('happy: a PING tells a loading server from a serving one', async () => {
    const loading = await fakeRedis(60_000);
    expect(await pingRedis(loading.port)).toBe('loading');
    const serving = await fakeRedis(0);
    expect(await pingRedis(serving.port)).toBe('pong');
  });

  it('error: nothing listening is no answer', async () => {
    const gone = await fakeRedis(0);
    servers.pop()!.close();
    await sleep(50);
    expect(await pingRedis(gone.port)).toBeNull();
  });

  it('fault: the start waits while the server loads its data set, and goes on at its first PONG', async () => {
    const redis = await fakeRedis(1_500);
    await waitForRedis('redis-test', redis.port);
    expect(redis.answers[0]).toBe('loading');
    expect(redis.answers.at(-1)).toBe('pong');
  });
});
