// The analytics benchmark over HTTP (BENCH_HTTP=1): a gateway started here on the benchmark
// database, with the answer cache off (ANALYTICS_CACHE_TTL_SECONDS=0, so every request reaches
// ClickHouse: cold), and an enterprise key whose rate limit does not get in the way.
import type { Redis } from 'ioredis';
import http from 'node:http';
import zlib from 'node:zlib';
import { createKeyStore } from '../common/auth/key-store.ts';
import { spawnService, stopChildren } from '../infra/local/services.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HttpGateway {
  /** Milliseconds from sending the request to the last byte of a 200 answer (or of one of `also`). */
  timedGet(path: string, also?: number[]): Promise<number>;
  /**
   * One request offering only `encoding`: the bytes as sent, and the milliseconds until the answer
   * is decoded (fetch offers every encoding it knows and hides which one came).
   */
  encodedGet(path: string, encoding: 'identity' | 'gzip' | 'br'): Promise<{ ms: number; bytes: number }>;
  close(): Promise<void>;
}

export async function startHttpGateway(options: {
  database: string;
  port: number;
  redis: Redis;
  keyPrefix: string;
}): Promise<HttpGateway> {
  const gateway = spawnService('gateway', {
    ...process.env,
    PORT: String(options.port),
    CLICKHOUSE_DATABASE: options.database,
    ANALYTICS_CACHE_TTL_SECONDS: '0',
    LOG_LEVEL: 'warn',
  });
  const base = `http://127.0.0.1:${options.port}/api/v1`;
  // Serving, not healthy: /healthz also wants stream workers, which this benchmark does not run.
  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (gateway.exitCode !== null) throw new Error(`gateway exited with code ${gateway.exitCode}`);
      const ok = await fetch(`${base}/openapi.json`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('gateway not serving after 120 s');
      await sleep(250);
    }
  } catch (error) {
    await stopChildren([gateway]);
    throw error;
  }
  const { key } = await createKeyStore(options.redis, options.keyPrefix).create({
    mode: 'live',
    tier: 'enterprise',
    rateLimit: 1_000_000,
    name: 'bench analytics over HTTP',
  });
  return {
    async timedGet(path, also = []) {
      const t0 = performance.now();
      // Uncompressed, as these series were measured before the API compressed large answers: over
      // loopback compression only costs (encodedGet below prints what it changes).
      const response = await fetch(`${base}${path}`, {
        headers: { 'X-API-Key': key, 'Accept-Encoding': 'identity' },
      });
      const body = await response.text();
      const ms = performance.now() - t0;
      if (response.status !== 200 && !also.includes(response.status))
        throw new Error(`GET ${path}: ${response.status} ${body.slice(0, 200)}`);
      return ms;
    },
    encodedGet(path, encoding) {
      const t0 = performance.now();
      return new Promise((resolve, reject) => {
        const request = http.get(
          `${base}${path}`,
          { headers: { 'X-API-Key': key, 'Accept-Encoding': encoding } },
          (response) => {
            const chunks: Buffer[] = [];
            response.on('data', (chunk: Buffer) => chunks.push(chunk));
            response.on('error', reject);
            response.on('end', () => {
              const sent = Buffer.concat(chunks);
              const coding = response.headers['content-encoding'];
              const body =
                coding === 'br'
                  ? zlib.brotliDecompressSync(sent)
                  : coding === 'gzip'
                    ? zlib.gunzipSync(sent)
                    : sent;
              JSON.parse(body.toString('utf8'));
              if (response.statusCode !== 200) reject(new Error(`GET ${path}: ${response.statusCode}`));
              else resolve({ ms: performance.now() - t0, bytes: sent.length });
            });
          },
        );
        request.on('error', reject);
      });
    },
    close: () => stopChildren([gateway]),
  };
}

/**
 * `path` asked 20 times per encoding the API can send, in 2 rounds: the time until decoded, and the
 * bytes the answer took on the wire.
 */
export async function measureEncodings(
  gateway: HttpGateway,
  path: string,
  name: string,
  report: (name: string, samples: number[]) => void,
): Promise<void> {
  for (let round = 0; round < 2; round++) {
    for (const encoding of ['identity', 'br', 'gzip'] as const) {
      const samples: number[] = [];
      let bytes = 0;
      for (let i = 0; i < 20; i++) {
        const answer = await gateway.encodedGet(path, encoding);
        samples.push(answer.ms);
        bytes = answer.bytes;
      }
      report(`${name}, Accept-Encoding ${encoding} (${Math.round(bytes / 1024)} KiB sent)`, samples);
    }
  }
}
