// What a hostile image can cost the photo analysis (stream/images/sniff.ts, decode.ts,
// decode-pool.ts): only photo formats reach libvips, absurd JPEG scan counts are refused unread, a
// decode past its deadline is killed with its process, and accounts take turns for the decoder.
import { afterEach, describe, expect, it } from 'vitest';
import { decodePhoto, MAX_JPEG_SCANS } from '../../stream/images/decode.ts';
import { createDecodePool, type DecodePool } from '../../stream/images/decode-pool.ts';
import { jpegScanCount, sniffFormat } from '../../stream/images/sniff.ts';
import { picture, repeatLastScan, svgBomb } from '../support/image-bombs.ts';

const limits = { maxPixels: 40_000_000, minSide: 32 };

/** A progressive JPEG with its last scan repeated `copies` times: every scan is a pass over the image. */
async function manyScans(copies: number): Promise<Buffer> {
  return repeatLastScan(await picture(300, 300).jpeg({ progressive: true }).toBuffer(), copies);
}

describe('photo formats', () => {
  it('happy: decodes JPEG, PNG, WebP, GIF and AVIF by their magic bytes', async () => {
    const source = picture(120, 80);
    const bodies = {
      jpeg: await source.clone().jpeg().toBuffer(),
      png: await source.clone().png().toBuffer(),
      webp: await source.clone().webp().toBuffer(),
      gif: await source.clone().gif().toBuffer(),
      avif: await source.clone().avif().toBuffer(),
    };
    for (const [format, body] of Object.entries(bodies)) {
      expect(sniffFormat(body)).toBe(format);
      const result = await decodePhoto(body, limits);
      expect(result.ok && result.photo.format).toBe(format === 'avif' ? 'heif' : format);
    }
  });

  it('security: refuses SVG, TIFF and HTML before decoding, however they are labelled', async () => {
    const started = performance.now();
    const svg = await decodePhoto(svgBomb(), limits);
    expect(svg).toMatchObject({ ok: false, outcome: 'unsupported_format' });
    expect(!svg.ok && svg.error).toMatch(/SVG/);
    // Refused unread: the bomb takes minutes to render.
    expect(performance.now() - started).toBeLessThan(5_000);
    const tiff = await picture(120, 80).tiff().toBuffer();
    expect(await decodePhoto(tiff, limits)).toMatchObject({ ok: false, outcome: 'unsupported_format' });
    expect(await decodePhoto(Buffer.from('<html>not an image</html>'), limits)).toMatchObject({
      ok: false,
      outcome: 'unsupported_format',
    });
  });

  it('security: refuses a JPEG with absurdly many scans and decodes an ordinary progressive one', async () => {
    const ordinary = await picture(300, 300).jpeg({ progressive: true }).toBuffer();
    expect(jpegScanCount(ordinary)).toBeLessThan(20);
    expect((await decodePhoto(ordinary, limits)).ok).toBe(true);
    const bomb = await manyScans(2 * MAX_JPEG_SCANS);
    expect(jpegScanCount(bomb)).toBeGreaterThan(MAX_JPEG_SCANS);
    expect(await decodePhoto(bomb, limits)).toMatchObject({ ok: false, outcome: 'too_many_scans' });
  });
});

describe('decode pool', () => {
  let pool: DecodePool | undefined;
  afterEach(async () => {
    await pool?.close();
    pool = undefined;
  });

  it('happy: decodes in a child process: the same views as decoding here', async () => {
    pool = createDecodePool({ size: 1, timeoutMs: 30_000, limits });
    const body = await picture(300, 200).jpeg().toBuffer();
    const [here, there] = [await decodePhoto(body, limits), await pool.decode('a', body, (r) => r)];
    expect(there.ok).toBe(true);
    expect(there.ok && here.ok && Buffer.compare(there.photo.modelRgb, here.photo.modelRgb)).toBe(0);
    expect(there.ok && Buffer.isBuffer(there.photo.hashGrey) && there.photo.hashGrey.length).toBe(32 * 32);
  });

  it('security: kills a decode that outlives its deadline and decodes the next photo', async () => {
    const small = await picture(300, 200).jpeg().toBuffer();
    // 6 megapixels of noise as AVIF: no shrink-on-load, over a hundred times the small photo's
    // decode (~1 s of CPU to encode here; 25 megapixels cost ~4 s for nothing more).
    const slow = await picture(2500, 2500).avif({ effort: 0, quality: 30 }).toBuffer();
    // The deadline scales with this machine's current speed: a few times a warm decode of the small
    // photo here, in the same library, plus room for a fresh child's first decode (its start,
    // loading sharp, is not timed by the pool).
    await decodePhoto(small, limits);
    const t0 = performance.now();
    expect((await decodePhoto(small, limits)).ok).toBe(true);
    const warm = performance.now() - t0;
    pool = createDecodePool({ size: 1, timeoutMs: Math.round(3 * warm + 300), limits });
    expect((await pool.decode('a', small, (r) => r)).ok).toBe(true);
    expect(await pool.decode('a', slow, (r) => r)).toMatchObject({ ok: false, outcome: 'decode_timeout' });
    expect((await pool.decode('a', small, (r) => r)).ok).toBe(true); // a new decoder
  });

  it("security: serves accounts in turns: one account's queued photos do not hold another's", async () => {
    pool = createDecodePool({ size: 1, timeoutMs: 30_000, limits });
    const body = await picture(600, 400).jpeg().toBuffer();
    const finished: string[] = [];
    const decode = (account: string, name: string) =>
      pool!.decode(account, body, () => void finished.push(name));
    const all = [1, 2, 3, 4, 5].map((n) => decode('flooder', `flooder-${n}`));
    all.push(decode('other', 'other'));
    await Promise.all(all);
    expect(finished.indexOf('other')).toBe(1);
  });
});
