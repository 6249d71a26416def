// What a downloaded body is, by its first bytes, before any decoder sees it. Only the raster
// formats listing photos come in are let through to libvips: its other loaders (SVG, PDF, TIFF,
// HEIC, …) can be made to run for minutes by a few kilobytes (a 2.7 KB SVG of nested <use> took
// 157 s), and the Content-Type header is the sender's word, not the body's.

export const PHOTO_FORMATS = ['jpeg', 'png', 'webp', 'gif', 'avif'] as const;
export type PhotoFormat = (typeof PHOTO_FORMATS)[number];

/** The format the magic bytes announce, or undefined for anything else. */
export function sniffFormat(body: Uint8Array): PhotoFormat | undefined {
  if (startsWith(body, 0, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(body, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (ascii(body, 0, 4) === 'RIFF' && ascii(body, 8, 4) === 'WEBP') return 'webp';
  if (ascii(body, 0, 6) === 'GIF87a' || ascii(body, 0, 6) === 'GIF89a') return 'gif';
  if (isAvif(body)) return 'avif';
  return undefined;
}

/**
 * AVIF is an ISO-BMFF file whose leading `ftyp` box names `avif` (still) or `avis` (sequence) as
 * its major or a compatible brand; HEIC uses the same box with other brands and is refused.
 */
function isAvif(body: Uint8Array): boolean {
  if (body.length < 16 || ascii(body, 4, 4) !== 'ftyp') return false;
  const size = ((body[0]! << 24) | (body[1]! << 16) | (body[2]! << 8) | body[3]!) >>> 0;
  const end = Math.min(size, body.length, 4096);
  if (size < 16) return false;
  const brands = [ascii(body, 8, 4)];
  for (let at = 16; at + 4 <= end; at += 4) brands.push(ascii(body, at, 4));
  return brands.includes('avif') || brands.includes('avis');
}

/**
 * Scans (SOS segments) in a JPEG, counted by walking its segments and skipping each scan's
 * entropy-coded data. A baseline JPEG has 1 (or one per component), an ordinary progressive one
 * about 10; each scan is a pass over the whole image, so 10,000 of them in 670 KB make a 35 s
 * decode. Stops counting at `stopAt`.
 */
export function jpegScanCount(body: Uint8Array, stopAt = Number.POSITIVE_INFINITY): number {
  let scans = 0;
  let at = 2; // after SOI
  while (at + 4 <= body.length && scans < stopAt) {
    if (body[at] !== 0xff) return scans; // not a marker where one must be: the decoder will say
    const marker = body[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd9) return scans; // EOI
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    const length = (body[at + 2]! << 8) | body[at + 3]!;
    at += 2 + length;
    if (marker !== 0xda) continue;
    scans++;
    // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00 nor a restart.
    while (at + 1 < body.length) {
      if (body[at] === 0xff) {
        const next = body[at + 1]!;
        if (next !== 0x00 && !(next >= 0xd0 && next <= 0xd7) && next !== 0xff) break;
      }
      at++;
    }
  }
  return scans;
}

function startsWith(body: Uint8Array, offset: number, bytes: number[]): boolean {
  if (body.length < offset + bytes.length) return false;
  return bytes.every((b, i) => body[offset + i] === b);
}

function ascii(body: Uint8Array, offset: number, length: number): string {
  if (body.length < offset + length) return '';
  return String.fromCharCode(...body.subarray(offset, offset + length));
}
