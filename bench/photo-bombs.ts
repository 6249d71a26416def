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

const env = parseEnv(photoEnvSchema);
const limits = { maxPixels: env.PHOTO_MAX_PIXELS, minSide: env.PHOTO_MIN_SIDE };

function noise(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(width * height * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = ((i * 2654435761) >>> 24) & 255;
  return bytes;
}

function svgBomb(): Buffer {
  let defs = '<circle id="l0" cx="5" cy="5" r="4"/>';
  for (let level = 1; level <= 6; level++)
    defs += `<g id="l${level}">${Array.from({ length: 10 }, () => `<use href="#l${level - 1}"/>`).join('')}</g>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="6000" height="6000"><defs>${defs}</defs><use href="#l6"/></svg>`,
  );
}

async function scanBomb(): Promise<Buffer> {
  const jpeg = await sharp({ create: { width: 6000, height: 6000, channels: 3, background: '#808080' } })
    .jpeg({ progressive: true })
    .toBuffer();
  // The last scan repeated: libjpeg reads every one of them.
  let at = 2;
  let lastScan = -1;
  let end = -1;
  while (at < jpeg.length) {
    const marker = jpeg[at + 1]!;
    if (marker === 0xd9) {
      end = at;
      break;
    }
    const start = at;
    at += 2 + ((jpeg[at + 2]! << 8) | jpeg[at + 3]!);
    if (marker !== 0xda) continue;
    lastScan = start;
    while (
      at + 1 < jpeg.length &&
      !(jpeg[at] === 0xff && jpeg[at + 1] !== 0 && (jpeg[at + 1]! & 0xf8) !== 0xd0)
    )
      at++;
  }
  const scan = jpeg.subarray(lastScan, end);
  return Buffer.concat([jpeg.subarray(0, lastScan), ...Array<Buffer>(10_000).fill(scan), jpeg.subarray(end)]);
}

const ordinary = await sharp(noise(1200, 900), { raw: { width: 1200, height: 900, channels: 3 } })
  .jpeg({ quality: 85 })
  .toBuffer();
const bombs: [string, Buffer][] = [
  ['svg (nested <use>)', svgBomb()],
  ['jpeg (10,000 scans)', await scanBomb()],
  [
    'avif (36 MP noise)',
    await sharp(noise(6000, 6000), { raw: { width: 6000, height: 6000, channels: 3 } })
      .avif({ effort: 0, quality: 30 })
      .toBuffer(),
  ],
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
