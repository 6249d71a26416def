// npm run bench:photo-bombs — what hostile images cost another tenant: one account queues five
// "bomb" images, then another account sends one ordinary JPEG; prints how long the ordinary JPEG
// took from being queued to decoded, for each kind of bomb, through the photo decoder the image
// process uses (decode-pool.ts at its defaults: PHOTO_TAG_CONCURRENCY children, PHOTO_DECODE_TIMEOUT_MS).
// Bombs: a 2.7 KB SVG of nested <use> (10⁶ circles), a progressive JPEG with 10,000 scans, and the
// slowest ordinary photos found that pass the format and scan checks: 36-megapixel noise AVIFs
// (~2.4 s each to decode here; run with PHOTO_DECODE_TIMEOUT_MS=1000 to see the deadline cut them).
import sharp from 'sharp';
import { parseEnv } from '../common/env.ts';
import { createDecodePool } from '../stream/images/decode-pool.ts';
import { photoEnvSchema } from '../stream/images/photo-env.ts';
import { picture, repeatLastScan, svgBomb } from '../test/support/image-bombs.ts';

const env = parseEnv(photoEnvSchema);
const limits = { maxPixels: env.PHOTO_MAX_PIXELS, minSide: env.PHOTO_MIN_SIDE };

async function scanBomb(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#808080' } })
    .jpeg({ progressive: true })
    .toBuffer();
  return repeatLastScan(jpeg, 10_000);
}

const ordinary = await picture(1200, 900).jpeg({ quality: 85 }).toBuffer();
const bombs: [string, Buffer][] = [
  ['svg (nested <use>)', svgBomb(6000)],
  ['jpeg (10,000 scans)', await scanBomb()],
  ['avif (36 MP noise)', await picture(6000, 6000).avif({ effort: 0, quality: 30 }).toBuffer()],
];

const pool = createDecodePool({
  size: env.PHOTO_TAG_CONCURRENCY,
  timeoutMs: env.PHOTO_DECODE_TIMEOUT_MS,
  limits,
});
await pool.decode('warm-up', ordinary, () => undefined);
const time = async (account: string, body: Buffer) => {
  const queued = performance.now();
  const result = await pool.decode(account, body, (r) => r);
  return { ms: performance.now() - queued, outcome: result.ok ? 'decoded' : result.outcome };
};
console.log(
  `decoder: ${env.PHOTO_TAG_CONCURRENCY} child process(es), deadline ${env.PHOTO_DECODE_TIMEOUT_MS} ms`,
);
console.log(`alone: ordinary JPEG ${(await time('tenant', ordinary)).ms.toFixed(0)} ms`);
for (const [name, body] of bombs) {
  const flood = Array.from({ length: 5 }, () => time('attacker', body));
  const other = await time('tenant', ordinary);
  const bombsDone = await Promise.all(flood);
  console.log(
    `5 × ${name} (${(body.length / 1024).toFixed(0)} KB, ${bombsDone[0]!.outcome}, ` +
      `${bombsDone.map((b) => (b.ms / 1000).toFixed(1)).join('/')} s): other tenant's JPEG ${other.ms.toFixed(0)} ms (${other.outcome})`,
  );
}
await pool.close();
