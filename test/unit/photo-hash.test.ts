// The perceptual hash (stream/images/phash.ts) through the real decoder: edits of one photo stay
// within the reuse distance, different photos do not, and the mirrored hash catches a flipped copy.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { decodePhoto } from '../../stream/images/decode.ts';
import { hammingDistance, phash } from '../../stream/images/phash.ts';

/** A deterministic photo-like picture: smooth colour fields at a few scales, from a seed. */
async function picture(seed: number): Promise<Buffer> {
  let state = seed;
  const random = () => ((state = (state * 1103515245 + 12345) >>> 0) >>> 8) / 2 ** 24;
  const [w, h] = [160, 120];
  const pixels = new Float64Array(w * h * 3);
  for (const [cells, weight] of [
    [3, 1],
    [7, 0.5],
    [15, 0.25],
  ] as const) {
    const grid = Float64Array.from({ length: (cells + 1) ** 2 * 3 }, random);
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++)
        for (let c = 0; c < 3; c++) {
          const gx = Math.round((x / w) * cells);
          const gy = Math.round((y / h) * cells);
          pixels[(y * w + x) * 3 + c] =
            pixels[(y * w + x) * 3 + c]! + weight * grid[(gy * (cells + 1) + gx) * 3 + c]!;
        }
  }
  const bytes = Buffer.from(Array.from(pixels, (v) => Math.round((v / 1.75) * 255)));
  return sharp(bytes, { raw: { width: w, height: h, channels: 3 } })
    .blur(2)
    .resize(640, 480)
    .jpeg({ quality: 92 })
    .toBuffer();
}

async function hashes(image: Buffer) {
  const decoded = await decodePhoto(image, { maxPixels: 40_000_000, minSide: 32 });
  if (!decoded.ok) throw new Error(decoded.error);
  return { plain: phash(decoded.photo.hashGrey), mirrored: phash(decoded.photo.hashGrey, true) };
}

describe('perceptual hash', () => {
  it('counts differing bits', () => {
    expect(hammingDistance(0n, 0n)).toBe(0);
    expect(hammingDistance(0b1011n, 0b0001n)).toBe(2);
    expect(hammingDistance(0xffff_ffff_ffff_ffffn, 0n)).toBe(64);
  });

  it('happy: keeps re-encoded, resized and lightly cropped copies within the reuse distance', async () => {
    const original = await picture(7);
    const base = await hashes(original);
    const copies = {
      'jpeg q40': await sharp(original).jpeg({ quality: 40 }).toBuffer(),
      'resized 50 %': await sharp(original).resize(320).png().toBuffer(),
      'cropped 1.25 % a side': await sharp(original)
        .extract({ left: 8, top: 6, width: 624, height: 468 })
        .toBuffer(),
      darker: await sharp(original).linear(0.7, 0).toBuffer(),
    };
    for (const [name, copy] of Object.entries(copies))
      expect(hammingDistance(base.plain, (await hashes(copy)).plain), name).toBeLessThanOrEqual(10);
  });

  it('matches a mirrored copy through the mirrored hash only', async () => {
    const original = await picture(11);
    const base = await hashes(original);
    const flipped = await hashes(await sharp(original).flop().toBuffer());
    expect(hammingDistance(base.mirrored, flipped.plain)).toBeLessThanOrEqual(2);
    expect(hammingDistance(base.plain, flipped.plain)).toBeGreaterThan(10);
  });

  it('error: keeps different pictures far apart (no false reuse)', async () => {
    const all = await Promise.all([1, 2, 3, 4, 5, 6].map(async (seed) => hashes(await picture(seed))));
    for (let i = 0; i < all.length; i++)
      for (let j = i + 1; j < all.length; j++) {
        expect(hammingDistance(all[i]!.plain, all[j]!.plain)).toBeGreaterThan(10);
        expect(hammingDistance(all[i]!.mirrored, all[j]!.plain)).toBeGreaterThan(10);
      }
  });
});
