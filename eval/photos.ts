// `npm run eval:photos`: the photo tagging (decode → floor-plan rule → Places365 scene model →
// ImageOf, stream/images/) against labelled photos, through the code the image process runs.
// Sets:
// - eval/rooms/ (in the repository): 420 real room photos, 84 each of Bathroom, Bedroom, DiningRoom,
//   Kitchen, LivingRoom, from the "Rooms" dataset (CC BY 4.0; eval/rooms/SOURCES.md);
// - eval/photos/ (in the repository): 8 curated CC0 photos and 2 generated pictures (expected Other);
// - drawn floor plans, generated here (expected FloorPlan), for the floor-plan rule;
// - optional, EVAL_HOUSES_DIR=<checkout of the Houses dataset>: its 535 houses × bathroom, bedroom,
//   kitchen and frontal photos (real listing photos, cited not shipped: docs/webhooks.md), the
//   front photos expected FrontOfStructure; EVAL_HOUSES_LIMIT=<n> takes houses 1..n.
// Each set is split in two halves by a hash of the file name (alternating within each expected
// value); the abstain threshold is chosen on the first half (the most photos right with at most
// 10 % abstaining) and every figure is reported on the second, held-out half: confusion matrix,
// per-tag precision and recall, abstain rate. EVAL_THRESHOLD=<x> reports at x instead.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { decodePhoto, type DecodedPhoto } from '../stream/images/decode.ts';
import { FLOOR_PLAN, isFloorPlan } from '../stream/images/floor-plan.ts';
import { photoEnvSchema } from '../stream/images/photo-env.ts';
import { loadSceneModel } from '../stream/images/scene-model.ts';
import { ABSTAIN, sceneScores, TAG_MODEL } from '../stream/images/scene-tags.ts';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings } from '../infra/local/settings.mjs';
import { drawnFloorPlans } from './floor-plans.ts';

const root = path.dirname(fileURLToPath(import.meta.url));
const env = photoEnvSchema.parse(process.env);
const modelPath = env.PHOTO_MODEL_PATH ?? (await ensurePhotoModel(readSettings(process.env)));
const model = await loadSceneModel(modelPath);
const MAX_ABSTAIN = 0.1;

interface Sample {
  set: string;
  name: string;
  expected: string;
  bytes: () => Promise<Buffer>;
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

function housesSamples(dir: string): Sample[] {
  const folder = fs.existsSync(path.join(dir, 'Houses Dataset')) ? path.join(dir, 'Houses Dataset') : dir;
  const expected: Record<string, string> = {
    bathroom: 'Bathroom',
    bedroom: 'Bedroom',
    kitchen: 'Kitchen',
    frontal: 'FrontOfStructure',
  };
  // EVAL_HOUSES_LIMIT: the first N houses only (the set's decode is ~10× that of eval/rooms).
  const limit = Number(process.env.EVAL_HOUSES_LIMIT ?? Number.POSITIVE_INFINITY);
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

const samples: Sample[] = [
  ...manifestSamples('rooms', path.join(root, 'rooms')),
  ...manifestSamples('curated', path.join(root, 'photos')),
  ...(await drawnFloorPlans()).map((plan, i) => ({
    set: 'plans',
    name: `(drawn plan ${i + 1})`,
    expected: 'FloorPlan',
    bytes: async () => plan,
  })),
  ...(process.env.EVAL_HOUSES_DIR ? housesSamples(process.env.EVAL_HOUSES_DIR) : []),
];

interface Scored {
  set: string;
  name: string;
  expected: string;
  half: 'calibration' | 'held-out';
  photo: Pick<DecodedPhoto, 'colour'>;
  scores: [string, number][];
}

// What the decoder and the model said per photo, kept between runs (EVAL_CACHE, default
// .local/eval-photos-<model>.json) so a change of the mapping or the rules re-evaluates in seconds.
const cacheFile =
  process.env.EVAL_CACHE ?? path.join(root, '..', '.local', `eval-photos-${path.basename(modelPath)}.json`);
const cache: Record<string, { colour: DecodedPhoto['colour']; probabilities: number[] }> = fs.existsSync(
  cacheFile,
)
  ? JSON.parse(fs.readFileSync(cacheFile, 'utf8'))
  : {};

const started = performance.now();
const scored: Scored[] = [];
const halves = new Map<string, number>();
const order = [...samples].sort((a, b) => digest(a.name).localeCompare(digest(b.name)));
for (const sample of order) {
  const cacheKey = `${sample.set}/${sample.name}`;
  if (!cache[cacheKey]) {
    const decoded = await decodePhoto(await sample.bytes(), {
      maxPixels: env.PHOTO_MAX_PIXELS,
      minSide: env.PHOTO_MIN_SIDE,
    });
    if (!decoded.ok) throw new Error(`${sample.set} ${sample.name}: ${decoded.error}`);
    const probabilities = Array.from(
      await model.classify(decoded.photo.modelRgb),
      (p) => Math.round(p * 1e6) / 1e6,
    );
    cache[cacheKey] = { colour: decoded.photo.colour, probabilities };
  }
  const { colour, probabilities } = cache[cacheKey]!;
  const key = `${sample.set}/${sample.expected}`;
  const n = halves.get(key) ?? 0;
  halves.set(key, n + 1);
  if (scored.length % 100 === 99) process.stderr.write(`${scored.length + 1}/${order.length} photos\n`);
  scored.push({
    ...sample,
    half: n % 2 === 0 ? 'calibration' : 'held-out',
    photo: { colour },
    scores: sceneScores(probabilities),
  });
}
fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
fs.writeFileSync(cacheFile, JSON.stringify(cache));
const seconds = (performance.now() - started) / 1000;

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What the image process would store for this photo at this threshold. */
function verdict(s: Scored, threshold: number): string {
  if (isFloorPlan(s.photo)) return 'FloorPlan';
  const [best] = s.scores;
  return best && best[1] >= threshold ? best[0] : ABSTAIN;
}

function figures(rows: Scored[], threshold: number) {
  const verdicts = rows.map((s) => ({ ...s, got: verdict(s, threshold) }));
  const right = verdicts.filter((v) => v.got === v.expected).length;
  const abstained = verdicts.filter((v) => v.got === ABSTAIN && v.expected !== ABSTAIN).length;
  const answered = verdicts.filter((v) => v.got !== ABSTAIN).length;
  const rightAnswered = verdicts.filter((v) => v.got !== ABSTAIN && v.got === v.expected).length;
  return { verdicts, right, abstained, answered, rightAnswered, total: rows.length };
}

/**
 * The highest threshold at which at most MAX_ABSTAIN of the photos abstain: abstaining never makes
 * a photo right, it turns the least certain answers (most of the wrong ones) into Other, and a
 * wrong label misleads where Other only says nothing.
 */
function chooseThreshold(rows: Scored[]): number {
  let best = 0;
  for (let t = 0; t <= 0.9001; t += 0.01) {
    const f = figures(rows, t);
    if (f.abstained / f.total <= MAX_ABSTAIN) best = Math.round(t * 100) / 100;
  }
  return best;
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '–');

function report(title: string, rows: Scored[], threshold: number) {
  if (!rows.length) return;
  const f = figures(rows, threshold);
  console.log(`\n== ${title}: ${f.total} photos, threshold ${threshold} ==`);
  console.log(
    `right ${f.right}/${f.total} (${pct(f.right / f.total)}); abstained ${f.abstained} (${pct(f.abstained / f.total)}); ` +
      `right when answering ${f.rightAnswered}/${f.answered} (${pct(f.rightAnswered / f.answered)})`,
  );
  const expectedTags = [...new Set(f.verdicts.map((v) => v.expected))].sort();
  const gotTags = [...new Set(f.verdicts.map((v) => v.got))].sort();
  const width = Math.max(...gotTags.map((t) => t.length), 5) + 1;
  console.log(`confusion (rows expected, columns given):`);
  console.log(`${''.padEnd(18)}${gotTags.map((t) => t.slice(0, width - 1).padStart(width)).join('')}`);
  for (const e of expectedTags)
    console.log(
      `${e.padEnd(18)}${gotTags
        .map((g) => String(f.verdicts.filter((v) => v.expected === e && v.got === g).length).padStart(width))
        .join('')}`,
    );
  console.log(`tag               precision   recall     (right/given, right/expected)`);
  for (const tag of [...new Set([...expectedTags, ...gotTags])].filter((t) => t !== ABSTAIN).sort()) {
    const tp = f.verdicts.filter((v) => v.got === tag && v.expected === tag).length;
    const given = f.verdicts.filter((v) => v.got === tag).length;
    const actual = f.verdicts.filter((v) => v.expected === tag).length;
    console.log(
      `${tag.padEnd(17)} ${pct(tp / given).padStart(8)}   ${pct(tp / actual).padStart(8)}     (${tp}/${given}, ${tp}/${actual})`,
    );
  }
}

const threshold = process.env.EVAL_THRESHOLD
  ? Number(process.env.EVAL_THRESHOLD)
  : chooseThreshold(scored.filter((s) => s.half === 'calibration' && s.set !== 'curated'));
console.log(`tag model ${TAG_MODEL} (${modelPath})`);
console.log(
  `${scored.length} photos decoded and classified in ${seconds.toFixed(1)} s; sets: ` +
    [...new Set(scored.map((s) => s.set))]
      .map((set) => `${set} ${scored.filter((s) => s.set === set).length}`)
      .join(', '),
);
console.log(
  `threshold ${threshold} ${process.env.EVAL_THRESHOLD ? '(EVAL_THRESHOLD)' : `chosen on the calibration half (the highest with ≤ ${MAX_ABSTAIN * 100} % abstaining)`}; ` +
    `floor-plan rule ${JSON.stringify(FLOOR_PLAN)}`,
);
const heldOut = scored.filter((s) => s.half === 'held-out');
for (const set of [...new Set(scored.map((s) => s.set))])
  report(
    `held-out half, ${set}`,
    heldOut.filter((s) => s.set === set),
    threshold,
  );
report('held-out half, every set', heldOut, threshold);
report(
  'calibration half, every set (for comparison)',
  scored.filter((s) => s.half === 'calibration'),
  threshold,
);
const photos = scored.filter((s) => s.set !== 'plans');
console.log(
  `\nfloor-plan rule: ${scored.filter((s) => s.set === 'plans' && isFloorPlan(s.photo)).length}/${scored.filter((s) => s.set === 'plans').length} drawn plans, ` +
    `${photos.filter((s) => isFloorPlan(s.photo)).length}/${photos.length} photos called FloorPlan`,
);
console.log('\nthreshold sweep on the held-out half: threshold  abstained  right  wrong');
for (const t of [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5]) {
  const f = figures(heldOut, t);
  console.log(
    `${t.toFixed(2).padStart(28)}  ${pct(f.abstained / f.total).padStart(9)}  ${pct(f.right / f.total).padStart(7)}  ${pct((f.answered - f.rightAnswered) / f.total).padStart(6)}`,
  );
}
if (process.env.EVAL_VERBOSE) {
  const c = (s: Scored) =>
    Object.entries(s.photo.colour)
      .map(([k, v]) => `${k} ${v.toFixed(3)}`)
      .join(' ');
  for (const s of scored.filter((s) => s.set === 'plans')) console.log(`plan ${s.name}: ${c(s)}`);
  for (const s of scored.filter((s) => s.set !== 'plans' && isFloorPlan(s.photo)))
    console.log(`not a plan ${s.set} ${s.name}: ${c(s)}`);
}
if (process.env.EVAL_VERBOSE)
  for (const s of heldOut) {
    const got = verdict(s, threshold);
    if (got !== s.expected)
      console.log(
        `${got === ABSTAIN ? 'abs' : 'BAD'} ${s.set} ${s.name} expected ${s.expected} got ${got}: ` +
          s.scores
            .slice(0, 3)
            .map(([t, p]) => `${t} ${p.toFixed(2)}`)
            .join(', '),
      );
  }
await model.release();
