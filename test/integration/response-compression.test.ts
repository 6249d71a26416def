// Large answers go compressed to a client that asks for it (common/http/compression.ts); small ones,
// such as a bulk create's reply to 100 listings, go as they are.
import http from 'node:http';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { COMPRESS_FROM_BYTES } from '../../common/http/compression.ts';
import { baseUrl, createTestKey, sampleListing } from '../support/api.ts';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as sent, before any decoding. */
  bytes: Buffer;
}

/** A request whose answer is read as raw bytes (fetch would decode it silently). */
function rawRequest(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(new URL(path, baseUrl()), { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, bytes: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const DOCUMENT = '/api/v1/openapi.json';

describe('response compression', () => {
  it('happy: a large answer goes as brotli when offered, else gzip, and decodes to the same JSON', async () => {
    const plain = await rawRequest('GET', DOCUMENT, {});
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.bytes.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    const document = JSON.parse(plain.bytes.toString('utf8'));

    const br = await rawRequest('GET', DOCUMENT, { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 3);
    expect(JSON.parse(zlib.brotliDecompressSync(br.bytes).toString('utf8'))).toEqual(document);

    const gzip = await rawRequest('GET', DOCUMENT, { 'Accept-Encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gzip.bytes).toString('utf8'))).toEqual(document);
  });

  it('a client that refuses every encoding gets the answer as it is', async () => {
    const identity = await rawRequest('GET', DOCUMENT, { 'Accept-Encoding': 'identity' });
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(() => JSON.parse(identity.bytes.toString('utf8'))).not.toThrow();
  });

  it('a bulk create of 100 listings is answered uncompressed (below the threshold)', async () => {
    const { key } = await createTestKey({ mode: 'test', tier: 'enterprise' });
    const listings = Array.from({ length: 100 }, () => sampleListing());
    const answer = await rawRequest(
      'POST',
      '/api/v1/listings/bulk',
      { 'Content-Type': 'application/json', 'X-API-Key': key, 'Accept-Encoding': 'gzip, br' },
      JSON.stringify({ listings }),
    );
    expect(answer.status).toBe(201);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.bytes.length).toBeLessThan(COMPRESS_FROM_BYTES);
    expect(JSON.parse(answer.bytes.toString('utf8')).results).toHaveLength(100);
  });
});
