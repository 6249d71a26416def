// Helpers of the clients' live tests (not a test file): a pass-through proxy in front of the
// running service that answers the first bulk create with a 429 after the service has handled it
// (the answer lost on the way, as when a limiter or a load balancer in between refuses late), so a
// client's retry must carry the same Idempotency-Key and get the same batch back.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

export interface LossyProxy {
  /** The proxy's /api/v1 base URL. */
  baseUrl: string;
  /** Every bulk create that reached the service: its Idempotency-Key and the service's answer. */
  bulk: { idempotencyKey: string | undefined; status: number; body: string }[];
  close(): Promise<void>;
}

export async function startLossyProxy(): Promise<LossyProxy> {
  const target = inject('baseUrl');
  const proxy: LossyProxy = { baseUrl: '', bulk: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) {
          headers.set(name, value);
        }
      }
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body });
      const text = await answer.text();
      const isBulk = req.method === 'POST' && req.url === '/api/v1/listings/bulk';
      if (isBulk) {
        proxy.bulk.push({
          idempotencyKey: req.headers['idempotency-key'] as string | undefined,
          status: answer.status,
          body: text,
        });
      }
      if (isBulk && proxy.bulk.length === 1) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(
          JSON.stringify({
            error: {
              code: 'rate_limited',
              message: 'Too many requests',
              request_id: 'proxy',
              retriable: true,
            },
          }),
        );
        return;
      }
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) {
          out[name] = value;
        }
      });
      res.writeHead(answer.status, out);
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** Six two-bedroom flats around `spot` (within 300 m): enough comparables for an estimate there. */
export function flatsAround(spot: { latitude: number; longitude: number }) {
  return Array.from({ length: 6 }, (_, i) => ({
    title: `Client test flat ${i} ${Math.random().toString(36).slice(2, 8)}`,
    description: 'Two-bedroom flat with parking, for the client libraries’ live test.',
    property_type: 'apartment' as const,
    price: 700_000 + 25_000 * i,
    currency: 'TZS' as const,
    bedrooms: 2,
    bathrooms: 1,
    latitude: spot.latitude + (i - 3) * 0.0008,
    longitude: spot.longitude + (i % 2) * 0.0008,
  }));
}
