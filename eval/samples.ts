// The labelled photos of `npm run eval:photos` and `npm run train:photo-head`, split in the same two
// halves for both, and what the decoder and the scene model say about each (the model's 365
// probabilities and 512 features, the colour figures of the floor-plan rule, the brightness), kept
// between runs in one cache file.
// Sets:
// - rooms (eval/rooms/, in the repository): 420 real room photos, 84 each of Bathroom, Bedroom,
//   DiningRoom, Kitchen, LivingRoom, from the "Rooms" dataset (CC BY 4.0; eval/rooms/SOURCES.md);
// - curated (eval/photos/, in the repository): 8 curated CC0 photos and 2 generated pictures;
// - plans: drawn floor plans, generated here (expected FloorPlan), for the floor-plan rule;
// - houses, optional (EVAL_HOUSES_DIR=<checkout of the Houses dataset>): bathroom, bedroom,
//   kitchen and frontal photos of each house (real listing photos, cited not shipped:
//   docs/webhooks.md), the front photos expected FrontOfStructure; EVAL_HOUSES_LIMIT=<n> takes
//   houses 1..n;
// - rooms-train, for training only (eval/rooms-train.ts): the training split of the dataset
//   eval/rooms/ comes from, all in the calibration half.
// Halves: every set's photos in the order of the SHA-256 of their names, alternating within each
// expected value; the first of each pair is calibration (what the head is trained on and the
// threshold chosen on), the second held out (what is reported).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodePhoto, type DecodedPhoto } from '../stream/images/decode.ts';
import type { PhotoEnv } from '../stream/images/photo-env.ts';
import type { SceneModel } from '../stream/images/scene-model.ts';
import type { EvalEnv } from './env.ts';
import { drawnFloorPlans } from './floor-plans.ts';

const root = path.dirname(fileURLToPath(import.meta.url));

export interface Sample {
  set: string;
  name: string;
  expected: string;
  /** Calibration half always, outside the alternation (eval/rooms-train.ts). */
  trainingOnly?: boolean;
  bytes: () => Promise<Buffer>;
}

export interface Scored {
  set: string;
  name: string;
  expected: string;
  half: 'calibration' | 'held-out';
  colour: DecodedPhoto['colour'];
  brightness: number;
  /** The scene model's 365 probabilities. */
  probabilities: number[];
  /** The scene model's 512 pooled features. */
  features: number[];
}

function manifestSamples(set: string, dir: string): Sample[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as {
    photos: { file?: string; generated?: 'dark' | 'noise'; expected: string }[];
  };
  return manifest.photos.map((entry) => ({
    set,
    name: entry.file ?? `(generated ${entry.generated})`,
    expected: entry.expected,
    bytes: async () => {
      if (entry.file) return fs.readFileSync(path.join(dir, entry.file));
      if (entry.generated === 'dark')
        return sharp(path.join(dir, 'kitchen.jpg')).linear(0.04, 0).jpeg().toBuffer();
      const side = 256;
      const pixels = Buffer.alloc(side * side);
      let seed = 42; // fixed, so every run sees the same noise
      for (let i = 0; i < pixels.length; i++) pixels[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      return sharp(pixels, { raw: { width: side, height: side, channels: 1 } })
        .png()
        .toBuffer();
    },
  }));
}

function housesSamples(dir: string, limit: number): Sample[] {
  const folder = fs.existsSync(path.join(dir, 'Houses Dataset')) ? path.join(dir, 'Houses Dataset') : dir;
  const expected: Record<string, string> = {
    bathroom: 'Bathroom',
    bedroom: 'Bedroom',
    kitchen: 'Kitchen',
    frontal: 'FrontOfStructure',
  };
  return fs
    .readdirSync(folder)
    .map((file) => ({
      file,
      house: Number(/^(\d+)_/.exec(file)?.[1]),
      kind: /^\d+_(\w+)\.jpg$/.exec(file)?.[1] ?? '',
    }))
    .filter(({ kind, house }) => kind in expected && house <= limit)
    .map(({ file, kind }) => ({
      set: 'houses',
      name: file,
      expected: expected[kind]!,
      bytes: async () => fs.readFileSync(path.join(folder, file)),
    }));
}

export async function evaluationSamples(
  env: Pick<EvalEnv, 'EVAL_HOUSES_DIR' | 'EVAL_HOUSES_LIMIT'>,
): Promise<Sample[]> {
  return [
    ...manifestSamples('rooms', path.join(root, 'rooms')),
    ...manifestSamples('curated', path.join(root, 'photos')),
    ...(await drawnFloorPlans()).map((plan, i) => ({
      set: 'plans',
      name: `(drawn plan ${i + 1})`,
      expected: 'FloorPlan',
      bytes: async () => plan,
    })),
    ...(env.EVAL_HOUSES_DIR
      ? housesSamples(env.EVAL_HOUSES_DIR, env.EVAL_HOUSES_LIMIT ?? Number.POSITIVE_INFINITY)
      : []),
  ];
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

type CacheEntry = Pick<DecodedPhoto, 'colour' | 'brightness'> & {
  probabilities: number[];
  features: number[];
};

/** Four significant digits keep a probability's logarithm to 1e-4 and the cache small. */
const keep = (values: Float32Array) => Array.from(values, (p) => Number(p.toPrecision(4)));

/**
 * Decodes and classifies every sample (or takes it from the cache file, by default
 * .local/eval-photos-<model file>.json) and assigns its half. `cachedOnly`: the cached photos alone
 * (a preview while another run is still classifying; the halves then differ from a full run's).
 */
export async function scoreSamples(
  samples: Sample[],
  options: { model: SceneModel; modelPath: string; env: PhotoEnv; cacheFile?: string; cachedOnly?: boolean },
): Promise<{ scored: Scored[]; seconds: number }> {
  const cacheFile =
    options.cacheFile ??
    path.join(root, '..', '.local', `eval-photos-${path.basename(options.modelPath)}.json`);
  const cache: Record<string, CacheEntry> = fs.existsSync(cacheFile)
    ? JSON.parse(fs.readFileSync(cacheFile, 'utf8'))
    : {};
  const started = performance.now();
  const scored: Scored[] = [];
  const halves = new Map<string, number>();
  const order = [...samples].sort((a, b) => digest(a.name).localeCompare(digest(b.name)));
  let fresh = 0;
  for (const sample of order) {
    const cacheKey = `${sample.set}/${sample.name}`;
    const known = cache[cacheKey];
    if (!known) {
      if (options.cachedOnly) continue;
      const decoded = await decodePhoto(await sample.bytes(), {
        maxPixels: options.env.PHOTO_MAX_PIXELS,
        minSide: options.env.PHOTO_MIN_SIDE,
      });
      if (!decoded.ok) throw new Error(`${sample.set} ${sample.name}: ${decoded.error}`);
      const { modelRgb, colour, brightness } = decoded.photo;
      const { probabilities, features } = await options.model.classify(modelRgb);
      cache[cacheKey] = { colour, brightness, probabilities: keep(probabilities), features: keep(features) };
      // Saved as it goes, so a stopped run resumes.
      if (++fresh % 50 === 0) save(cacheFile, cache);
    }
    const key = `${sample.set}/${sample.expected}`;
    const n = sample.trainingOnly ? 0 : (halves.get(key) ?? 0);
    if (!sample.trainingOnly) halves.set(key, n + 1);
    if (scored.length % 200 === 199) process.stderr.write(`${scored.length + 1}/${order.length} photos\n`);
    scored.push({
      set: sample.set,
      name: sample.name,
      expected: sample.expected,
      half: n % 2 === 0 ? 'calibration' : 'held-out',
      ...cache[cacheKey]!,
    });
  }
  if (fresh) save(cacheFile, cache);
  return { scored, seconds: (performance.now() - started) / 1000 };
}

function save(file: string, cache: Record<string, CacheEntry>) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(cache));
  fs.renameSync(`${file}.tmp`, file);
}
