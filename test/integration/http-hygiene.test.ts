// Request hygiene of the API processes: the key is checked before a body is read or
// parsed, unknown routes never read one, a body-less POST needs no Content-Type, and slow clients
// are cut off by the header and request timeouts.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, baseUrl, createTestKey, sampleListing } from '../support/api.ts';
import { startGateway, type ExtraGateway } from '../support/auth.ts';

interface RawAnswer {
  /** Everything the server sent before closing or before `waitMs` passed. */
  response: string;
  closed: boolean;
  ms: number;
}

/** Writes `text` on a fresh connection and collects the answer for at most `waitMs`. */
function rawRequest(port: number, text: string, waitMs: number): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect({ port, host: '127.0.0.1' });
    let response = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ response, closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk) => {
      response += chunk.toString();
      // One complete error answer is enough (its JSON body ends the response).
      if (/\r\n\r\n[\s\S]*\}\}$/.test(response)) done(false);
    });
    socket.on('close', () => done(true));
    socket.on('error', () => done(true));
  });
}

const portOf = (url: string) => Number(new URL(url).port);
const bigBody = JSON.stringify({ listings: ['x'.repeat(3 * 1024 * 1024)] });

describe('authentication before the body (security)', () => {
  it('answers a missing or malformed key with 401 without parsing the body', async () => {
    const noKey = await api('POST', '/api/v1/listings/bulk', {
      rawBody: '{"listings": [',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(noKey.status).toBe(401);
    expect(noKey.body.error.code).toBe('missing_api_key');
    const badKey = await api('POST', '/api/v1/events/views', {
      rawBody: bigBody,
      headers: { 'Content-Type': 'application/json', 'X-API-Key': 'svc_live_nope' },
    });
    expect(badKey.status).toBe(401);
    expect(badKey.body.error.code).toBe('invalid_api_key');
  });

  it('answers 401 at once while the announced body has not even arrived', async () => {
    const answer = await rawRequest(
      portOf(baseUrl()),
      'POST /api/v1/listings/bulk HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Content-Length: 1000000\r\n\r\n{"listings":[',
      5_000,
    );
    expect(answer.response).toMatch(/^HTTP\/1\.1 401 /);
    expect(answer.response).toContain('missing_api_key');
    expect(answer.ms).toBeLessThan(4_000);
  });

  it('answers unknown routes with 404 without reading their body', async () => {
    const { key } = await createTestKey();
    const big = await api('POST', '/api/v1/nope', {
      key,
      rawBody: bigBody,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(big.status).toBe(404);
    expect(big.body.error.code).toBe('not_found');
    const answer = await rawRequest(
      portOf(baseUrl()),
      `POST /api/v1/nope HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{',
      5_000,
    );
    expect(answer.response).toMatch(/^HTTP\/1\.1 404 /);
  });

  it('happy: still answers a well-formed request with a valid key', async () => {
    const { key } = await createTestKey();
    const created = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: [sampleListing()] },
    });
    expect(created.status).toBe(201);
  });
});

describe('slow clients (security)', () => {
  let gateway: ExtraGateway;
  beforeAll(async () => {
    gateway = await startGateway({ HTTP_HEADERS_TIMEOUT_MS: '1000', HTTP_REQUEST_TIMEOUT_MS: '2000' });
  });
  afterAll(async () => {
    await gateway?.stop();
  });

  it('drops a connection whose headers never complete (headers timeout)', async () => {
    const answer = await rawRequest(
      gateway.port,
      'GET /api/v1/listings/bulk HTTP/1.1\r\nHost: x\r\n',
      10_000,
    );
    expect(answer.closed || /^HTTP\/1\.1 408 /.test(answer.response)).toBe(true);
    expect(answer.ms).toBeLessThan(6_000);
  });

  it('answers 408 to an authenticated request whose body never completes (request timeout)', async () => {
    const { key } = await createTestKey();
    const answer = await rawRequest(
      gateway.port,
      `POST /api/v1/listings/bulk HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n{"listings":[',
      10_000,
    );
    expect(answer.closed || /^HTTP\/1\.1 408 /.test(answer.response)).toBe(true);
    expect(answer.ms).toBeLessThan(7_000);
  });
});
