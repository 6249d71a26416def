// Decodes a downloaded photo once, within pixel limits, into the small views the analysis needs:
// the model's 224×224 RGB input, a 32×32 grey thumbnail for the perceptual hash, and brightness
// and sharpness figures. Before libvips sees a byte, the body must be one of the photo formats by
// its magic bytes (sniff.ts) and a JPEG must have a sane number of scans; then sharp reads the
// header, so an image over the pixel limit is refused before its pixels are decoded. Time is not
// limited here: decode-pool.ts runs this in a child process it kills at the deadline.
import sharp, { type Metadata } from 'sharp';
import { jpegScanCount, sniffFormat } from './sniff.ts';

// One libvips thread per operation and no operation cache: PHOTO_TAG_CONCURRENCY bounds the CPU,
// and a worker holds no decoded images between photos.
sharp.concurrency(1);
sharp.cache(false);

export const MODEL_SIDE = 224;
/** Mean luma under which a photo is too dark to see (is_dark; not tagged). */
export const DARK_BELOW = 0.15;
/**
 * More scans than any encoder writes for a photo (baseline 1–3, progressive ~10, optimised
 * progressive ~20); each scan is a pass over the whole image.
 */
export const MAX_JPEG_SCANS = 100;
export const HASH_SIDE = 32;
/** Longest side of the grey view that brightness and sharpness are measured on. */
const MEASURE_SIDE = 256;

export interface DecodedPhoto {
  format: string;
  /** As displayed (EXIF orientation applied). */
  width: number;
  height: number;
  /** MODEL_SIDE² × RGB bytes, the whole photo squeezed (as the scene model was trained). */
  modelRgb: Buffer;
  /** HASH_SIDE² grey bytes, whole image squeezed (no crop, so a small crop moves the hash little). */
  hashGrey: Buffer;
  /** Mean luma 0..1. */
  brightness: number;
  /** Variance of the Laplacian of the grey view (≤ 256 px): low means no edges, i.e. blurred. */
  sharpness: number;
  /** Standard deviation of the grey thumbnail (0..255): near 0 is a flat picture with no content. */
  contrast: number;
  /** Colour statistics of the decoded view (floor-plan.ts). */
  colour: ColourStats;
}

export interface ColourStats {
  /** Share of pixels that are near white (every channel ≥ 215). */
  white: number;
  /** Share of pixels that are dark (every channel < 110): lines and text on a drawing. */
  dark: number;
  /** Mean chroma, (max − min channel) / 255: 0 for greys. */
  chroma: number;
}

export type DecodeFailure =
  | 'not_an_image'
  | 'unsupported_format'
  | 'too_many_scans'
  | 'too_many_pixels'
  | 'too_small'
  | 'decode_timeout';

export type DecodeResult =
  { ok: true; photo: DecodedPhoto } | { ok: false; outcome: DecodeFailure; error: string };

export interface DecodeLimits {
  maxPixels: number;
  minSide: number;
}

/** The checks that need no decoder: format by magic bytes, JPEG scan count. */
export function refuseBeforeDecoding(body: Uint8Array): DecodeResult | undefined {
  const format = sniffFormat(body);
  if (!format) {
    const text = /^\s*</.test(Buffer.from(body.subarray(0, 64)).toString('latin1'));
    return {
      ok: false,
      outcome: 'unsupported_format',
      error: `not JPEG, PNG, WebP, GIF or AVIF by its first bytes${text ? ' (markup: SVG, HTML or XML)' : ''}`,
    };
  }
  if (format === 'jpeg') {
    const scans = jpegScanCount(body, MAX_JPEG_SCANS + 1);
    if (scans > MAX_JPEG_SCANS)
      return { ok: false, outcome: 'too_many_scans', error: `JPEG with over ${MAX_JPEG_SCANS} scans` };
  }
  return undefined;
}

export async function decodePhoto(body: Buffer, { maxPixels, minSide }: DecodeLimits): Promise<DecodeResult> {
  const refused = refuseBeforeDecoding(body);
  if (refused) return refused;
  let meta: Metadata;
  try {
    meta = await sharp(body, { limitInputPixels: false }).metadata();
  } catch (error) {
    return { ok: false, outcome: 'not_an_image', error: message(error) };
  }
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  if (!width || !height) return { ok: false, outcome: 'not_an_image', error: 'no image dimensions' };
  if (width * height > maxPixels)
    return { ok: false, outcome: 'too_many_pixels', error: `${width}×${height} is over ${maxPixels} pixels` };
  if (Math.min(width, height) < minSide)
    return { ok: false, outcome: 'too_small', error: `${width}×${height} is under ${minSide} pixels a side` };
  try {
    // One full decode into a bounded RGB view; the rest is computed from it.
    const { data, info } = await sharp(body, { limitInputPixels: maxPixels, failOn: 'error' })
      .autoOrient()
      .resize(512, 512, { fit: 'inside', withoutEnlargement: true })
      .removeAlpha()
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
    const [modelRgb, hashGrey, measure] = await Promise.all([
      sharp(data, raw).resize(MODEL_SIDE, MODEL_SIDE, { fit: 'fill' }).raw().toBuffer(),
      sharp(data, raw).greyscale().resize(HASH_SIDE, HASH_SIDE, { fit: 'fill' }).raw().toBuffer(),
      sharp(data, raw)
        .greyscale()
        .resize(MEASURE_SIDE, MEASURE_SIDE, { fit: 'inside', withoutEnlargement: true })
        .raw()
        .toBuffer({ resolveWithObject: true }),
    ]);
    return {
      ok: true,
      photo: {
        format: meta.format ?? '',
        width,
        height,
        modelRgb,
        hashGrey,
        brightness: mean(measure.data) / 255,
        sharpness: laplacianVariance(measure.data, measure.info.width, measure.info.height),
        contrast: Math.sqrt(variance(hashGrey)),
        colour: colourStats(data, info.channels),
      },
    };
  } catch (error) {
    return { ok: false, outcome: 'not_an_image', error: message(error) };
  }
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

function colourStats(rgb: Uint8Array, channels: number): ColourStats {
  let white = 0;
  let dark = 0;
  let chroma = 0;
  const pixels = Math.floor(rgb.length / channels);
  for (let i = 0; i < rgb.length; i += channels) {
    const [r, g, b] = [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
    const max = Math.max(r, g, b);
    const min = Math.min(r, g, b);
    if (min >= 215) white++;
    if (max < 110) dark++;
    chroma += max - min;
  }
  return pixels
    ? { white: white / pixels, dark: dark / pixels, chroma: chroma / pixels / 255 }
    : { white: 0, dark: 0, chroma: 0 };
}

function mean(values: Uint8Array): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length ? sum / values.length : 0;
}

function variance(values: Uint8Array): number {
  const m = mean(values);
  let sum = 0;
  for (const v of values) sum += (v - m) ** 2;
  return values.length ? sum / values.length : 0;
}

/** 4-neighbour Laplacian over the interior pixels. */
function laplacianVariance(grey: Uint8Array, width: number, height: number): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const l = grey[i - 1]! + grey[i + 1]! + grey[i - width]! + grey[i + width]! - 4 * grey[i]!;
      sum += l;
      sumSq += l * l;
      n++;
    }
  }
  return n ? sumSq / n - (sum / n) ** 2 : 0;
}
