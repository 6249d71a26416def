// Decoding within limits (stream/images/decode.ts) and fetching within the byte limit
// (stream/images/fetch-photo.ts) against a real local server: each failure is an outcome.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressPolicy, createOutboundClient } from '../../common/outbound/index.ts';
import { decodePhoto } from '../../stream/images/decode.ts';
import { fetchPhoto } from '../../stream/images/fetch-photo.ts';
import { ANSWER_TTL_MS, cachingResolver, imageResolver } from '../../stream/images/resolver.ts';

const limits = { maxPixels: 40_000_000, minSide: 32 };
const grey = (width: number, height: number, level = 128) =>
  sharp({ create: { width, height, channels: 3, background: { r: level, g: level, b: level } } });

describe('photo decode', () => {
  it('happy: reports format, displayed size and brightness', async () => {
    const result = await decodePhoto(await grey(300, 200).png().toBuffer(), limits);
    expect(result.ok && result.photo).toMatchObject({ format: 'png', width: 300, height: 200 });
    expect(result.ok && result.photo.brightness).toBeCloseTo(128 / 255, 2);
    expect(result.ok && result.photo.modelRgb.length).toBe(224 * 224 * 3);
    expect(result.ok && result.photo.hashGrey.length).toBe(32 * 32);
  });

  it('applies the EXIF orientation to the size', async () => {
    const rotated = await grey(300, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = await decodePhoto(rotated, limits);
    expect(result.ok && [result.photo.width, result.photo.height]).toEqual([200, 300]);
  });

  it('error: refuses a 1×1 image, a non-image and too many pixels without decoding', async () => {
    expect(await decodePhoto(await grey(1, 1).png().toBuffer(), limits)).toMatchObject({
      ok: false,
      outcome: 'too_small',
    });
    expect(await decodePhoto(Buffer.from('<html>not an image</html>'), limits)).toMatchObject({
      ok: false,
      outcome: 'unsupported_format',
    });
    const truncated = (await grey(300, 200).jpeg().toBuffer()).subarray(0, 40);
    expect(await decodePhoto(truncated, limits)).toMatchObject({ ok: false, outcome: 'not_an_image' });
    const big = await grey(400, 300).jpeg().toBuffer();
    expect(await decodePhoto(big, { ...limits, maxPixels: 100_000 })).toMatchObject({
      ok: false,
      outcome: 'too_many_pixels',
    });
  });

  it('measures a dark picture as dark and a blurred one as not sharp', async () => {
    const dark = await decodePhoto(await grey(200, 200, 10).jpeg().toBuffer(), limits);
    expect(dark.ok && dark.photo.brightness).toBeLessThan(0.15);
    const stripes = Buffer.from(Array.from({ length: 200 * 200 }, (_, i) => ((i % 200) % 8 < 4 ? 0 : 255)));
    const sharpStripes = await sharp(stripes, { raw: { width: 200, height: 200, channels: 1 } })
      .png()
      .toBuffer();
    const blurred = await sharp(sharpStripes).blur(8).png().toBuffer();
    const [a, b] = await Promise.all([decodePhoto(sharpStripes, limits), decodePhoto(blurred, limits)]);
    expect(a.ok && a.photo.sharpness).toBeGreaterThan(1000);
    expect(b.ok && b.photo.sharpness).toBeLessThan(100);
  });
});

describe('photo fetch', () => {
  let server: http.Server;
  let base = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/exact') return void res.writeHead(200).end(Buffer.alloc(1000));
      if (req.url === '/over') return void res.writeHead(200).end(Buffer.alloc(1001));
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://img.localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const open = createOutboundClient({
    policy: createAddressPolicy(['127.0.0.0/8']),
    resolver: imageResolver,
  });
  const options = { maxBytes: 1000, timeoutMs: 2000 };

  it('happy, error: reads a body up to the limit, and no body past it', async () => {
    const exact = await fetchPhoto(open, `${base}/exact`, options);
    expect(exact.ok && exact.body.length).toBe(1000);
    expect(await fetchPhoto(open, `${base}/over`, options)).toMatchObject({
      ok: false,
      outcome: 'too_large',
    });
    expect(await fetchPhoto(open, `${base}/missing`, options)).toMatchObject({
      ok: false,
      outcome: 'download_failed',
      error: 'status 404',
    });
  });

  it('security: refuses *.localhost when loopback is not allowed', async () => {
    const closed = createOutboundClient({ policy: createAddressPolicy([]), resolver: imageResolver });
    const result = await fetchPhoto(closed, `${base}/exact`, options);
    expect(result).toMatchObject({ ok: false, outcome: 'download_failed' });
    expect(!result.ok && result.error).toMatch(/^forbidden_address/);
  });
});

describe('image resolver', () => {
  it('happy, error: shares one lookup per name, failures too, for a while', async () => {
    let lookups = 0;
    let clock = 0;
    const resolve = cachingResolver(
      async (name) => {
        lookups++;
        if (name.endsWith('.invalid')) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
        return [{ address: '203.0.113.9', family: 4 }];
      },
      () => clock,
    );
    await Promise.all([resolve('cdn.example.com'), resolve('CDN.example.com.'), resolve('cdn.example.com')]);
    expect(lookups).toBe(1);
    const failures = await Promise.allSettled([resolve('gone.invalid'), resolve('gone.invalid')]);
    expect(failures.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(lookups).toBe(2);
    clock += ANSWER_TTL_MS;
    await resolve('cdn.example.com');
    expect(lookups).toBe(3);
  });

  it('answers *.localhost with loopback without asking DNS', async () => {
    let lookups = 0;
    const resolve = cachingResolver(async () => {
      lookups++;
      return [];
    });
    expect(await resolve('photos.localhost')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(lookups).toBe(0);
  });
});
