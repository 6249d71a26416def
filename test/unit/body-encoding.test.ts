// Compressed request bodies through the JSON body reader (common/http/json-body.ts) over real HTTP:
// gzip, deflate and br bodies are read; a body that does not decompress (truncated gzip, garbage
// deflate, plain JSON labelled br) is 400 invalid_body_encoding, an encoding that is not documented
// 415 — never a 500, and nothing logged at error level.
import http from 'node:http';
import zlib from 'node:zlib';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiApp, listen, type RunningServer } from '../../common/http/app.ts';
import { jsonBody } from '../../common/http/json-body.ts';
import { createLogger } from '../../common/logger.ts';

const lines: Record<string, unknown>[] = [];
let server: RunningServer;

beforeAll(async () => {
  const router = Router();
  router.post('/echo', jsonBody(), (req, res) => {
    res.json({ body: req.body });
  });
  const logger = createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  const app = createApiApp({
    logger,
    routers: [router],
    health: { report: async () => ({ status: 'ok', components: {} }) },
  });
  server = await listen(app, 0, { host: '127.0.0.1' });
});

afterAll(async () => {
  await server?.close();
});

interface Answer {
  status: number;
  body: { error?: { code: string; message: string; request_id: string; details?: unknown }; body?: unknown };
}

/** Posts raw bytes with the given Content-Encoding (node:http: fetch would not send them as is). */
function post(bytes: Buffer, encoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'Content-Type': 'application/json',
      'Content-Length': bytes.length,
    };
    if (encoding !== undefined) headers['Content-Encoding'] = encoding;
    const req = http.request(
      { host: '127.0.0.1', port: server.port, path: '/api/v1/echo', method: 'POST', headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

const json = Buffer.from(JSON.stringify({ listings: [{ title: 'Flat in Masaki' }] }));

function expectNoErrorLogged(requestId: string | undefined) {
  const logged = lines.filter((l) => l.request_id === requestId);
  expect(logged.length).toBeGreaterThan(0); // the access log line
  expect(logged.filter((l) => l.level === 'error')).toEqual([]);
}

describe('compressed request bodies (happy)', () => {
  it('reads gzip, deflate and br bodies', async () => {
    const encoded = {
      gzip: zlib.gzipSync(json),
      deflate: zlib.deflateSync(json),
      br: zlib.brotliCompressSync(json),
    };
    for (const [encoding, bytes] of Object.entries(encoded)) {
      const answer = await post(bytes, encoding);
      expect(answer.status, encoding).toBe(200);
      expect(answer.body.body).toEqual(JSON.parse(json.toString()));
    }
  });
});

describe('compressed request bodies (error)', () => {
  const gzipped = zlib.gzipSync(json);
  const cases: [string, Buffer, string][] = [
    ['truncated gzip', gzipped.subarray(0, gzipped.length - 10), 'gzip'],
    [
      'gzip header, garbage after it',
      Buffer.concat([gzipped.subarray(0, 10), Buffer.alloc(40, 0xff)]),
      'gzip',
    ],
    ['garbage deflate', Buffer.from('this is not deflate data at all, not even close'), 'deflate'],
    ['plain JSON labelled br', json, 'br'],
    ['plain JSON labelled gzip', json, 'gzip'],
  ];
  for (const [name, bytes, encoding] of cases) {
    it(`answers ${name} with 400 invalid_body_encoding, logged below error`, async () => {
      const answer = await post(bytes, encoding);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'invalid_body_encoding',
        message: expect.stringContaining(`not valid ${encoding} data`),
        details: { header: 'Content-Encoding', encoding },
      });
      expectNoErrorLogged(answer.body.error?.request_id);
    });
  }

  it('answers an encoding that is not documented with 415, naming the ones that are', async () => {
    for (const encoding of ['zstd', 'compress', 'gzip, br', 'x-bogus']) {
      const answer = await post(json, encoding);
      expect(answer.status, encoding).toBe(415);
      expect(answer.body.error).toMatchObject({
        code: 'unsupported_media_type',
        message: expect.stringContaining(`Content-Encoding "${encoding}" is not supported`),
        details: { header: 'Content-Encoding', supported: ['identity', 'gzip', 'deflate', 'br'] },
      });
      expectNoErrorLogged(answer.body.error?.request_id);
    }
  });

  it('still answers a body too large once decompressed with 413', async () => {
    const big = Buffer.from(JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) }));
    const answer = await post(zlib.gzipSync(big), 'gzip');
    expect(answer.status).toBe(413);
    expect(answer.body.error?.code).toBe('payload_too_large');
  });
});
