// Hostile images for the decoder's safety checks, shared by its tests and bench:photo-bombs.
import sharp from 'sharp';

/** Deterministic RGB noise: it compresses badly, as real photos do. */
export function noise(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(width * height * 3);
  for (let i = 0; i < bytes.length; i++) bytes[i] = ((i * 2654435761) >>> 24) & 255;
  return bytes;
}

export const picture = (width: number, height: number) =>
  sharp(noise(width, height), { raw: { width, height, channels: 3 } });

/** A small SVG whose nested <use> elements draw 10⁶ circles: minutes of rendering in libvips. */
export function svgBomb(size = 4000): Buffer {
  let defs = '<circle id="l0" cx="5" cy="5" r="4"/>';
  for (let level = 1; level <= 6; level++)
    defs += `<g id="l${level}">${Array.from({ length: 10 }, () => `<use href="#l${level - 1}"/>`).join('')}</g>`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}"><defs>${defs}</defs><use href="#l6"/></svg>`,
  );
}

/** A progressive JPEG with its last scan repeated `copies` times: libjpeg reads every one of them. */
export function repeatLastScan(jpeg: Buffer, copies: number): Buffer {
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
  return Buffer.concat([jpeg.subarray(0, lastScan), ...Array<Buffer>(copies).fill(scan), jpeg.subarray(end)]);
}
