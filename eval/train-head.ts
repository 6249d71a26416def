// `npm run train:photo-head`: trains the tagger's head (stream/images/scene-head.ts) and writes
// stream/images/scene-head.json. Inputs: the scene model's probabilities and features of the
// labelled photos of eval/samples.ts (eval/rooms and, with EVAL_HOUSES_DIR, the Houses dataset),
// **calibration half only**, and with EVAL_ROOMS_TRAIN_DIR the training split of the dataset
// eval/rooms comes from (eval/rooms-train.ts, never evaluated): the held-out half is never read
// here, so `npm run eval:photos` reports on photos the head has not seen. Each source counts
// alike in the loss (the Houses photos weigh as much in all as the Rooms dataset's, however many
// of those the training split adds), and within each source every value alike. 5-fold cross-validation chooses the L2 penalty (lowest log
// loss out of fold on the calibration photos of the evaluated sets), and the out-of-fold
// probabilities of those photos choose the thresholds (head-thresholds.ts). The inputs are the
// logarithms of the 365 scene probabilities and the model's 512 pooled features (the logarithms
// alone lost by a wide margin out of fold: docs/photos.md, "Tags: what each photo shows").
// Deterministic: the same photos give the same file.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings } from '../infra/local/settings.mjs';
import { headFeatures, type HeadInputs, type SceneHead } from '../stream/images/scene-head.ts';
import { loadSceneModel } from '../stream/images/scene-model.ts';
import { ABSTAIN, sceneTags } from '../stream/images/scene-tags.ts';
import { evalEnv as env } from './env.ts';
import { chooseThresholds } from './head-thresholds.ts';
import { roomsTrainingSamples, withoutNearCopies } from './rooms-train.ts';
import { evaluationSamples, scoreSamples, type Sample } from './samples.ts';
import { fitSoftmax, predict, type SoftmaxModel } from './softmax-regression.ts';

const root = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(root, '..', 'stream', 'images', 'scene-head.json');
if (!env.EVAL_HOUSES_DIR)
  process.stderr.write('EVAL_HOUSES_DIR is not set: training on eval/rooms alone (no house fronts)\n');
const modelPath = env.PHOTO_MODEL_PATH ?? (await ensurePhotoModel(readSettings()));
const model = await loadSceneModel(modelPath);
const evaluated = await evaluationSamples(env);
let training: Sample[] = [];
if (env.EVAL_ROOMS_TRAIN_DIR) {
  const split = await withoutNearCopies(
    roomsTrainingSamples(env.EVAL_ROOMS_TRAIN_DIR),
    evaluated.filter((s) => s.set === 'rooms'),
  );
  training = split.kept;
  console.log(
    `rooms training split: ${split.kept.length} photos, ${split.dropped.length} left out as near copies of eval/rooms photos`,
  );
} else process.stderr.write('EVAL_ROOMS_TRAIN_DIR is not set: no photos of the Rooms training split\n');
const { scored } = await scoreSamples([...evaluated, ...training], {
  model,
  modelPath,
  env,
  cachedOnly: env.EVAL_CACHED_ONLY,
});
await model.release();

const TRAINED_SETS = ['rooms', 'rooms-train', 'houses'];
const calibration = scored.filter((s) => s.half === 'calibration' && TRAINED_SETS.includes(s.set));
const classes = [...new Set(calibration.map((s) => s.expected))].sort();
const labels = calibration.map((s) => classes.indexOf(s.expected));
/** The photos the penalty and the thresholds are judged on: those of the evaluated sets. */
const judged = calibration.map((s, i) => (s.set === 'rooms-train' ? -1 : i)).filter((i) => i >= 0);
/**
 * Rooms (eval/rooms and its training split) and Houses weigh alike in all, and within each every
 * value alike: the training split has twice as many living rooms as bathrooms, the evaluated sets
 * the same number of each, and a listing's photos no fixed mix.
 */
const cell = (s: { set: string; expected: string }) =>
  `${s.set === 'houses' ? 'houses' : 'rooms'}/${s.expected}`;
const perCell = new Map<string, number>();
for (const s of calibration) perCell.set(cell(s), (perCell.get(cell(s)) ?? 0) + 1);
const valuesPerSource = new Map<string, number>();
for (const key of perCell.keys()) {
  const source = key.split('/')[0]!;
  valuesPerSource.set(source, (valuesPerSource.get(source) ?? 0) + 1);
}
const rowWeights = calibration.map((s) => {
  const source = cell(s).split('/')[0]!;
  return calibration.length / valuesPerSource.size / valuesPerSource.get(source)! / perCell.get(cell(s))!;
});
const FOLDS = 5;
const LAMBDAS = [0.01, 0.03, 0.1];
const INPUTS: HeadInputs = 'log-probabilities+features';

/** Inputs standardised by the training rows' mean and spread (each fold its own). */
function standardiser(rows: Float64Array[]) {
  const d = rows[0]!.length;
  const mean = new Float64Array(d);
  const scale = new Float64Array(d);
  for (const r of rows) for (let j = 0; j < d; j++) mean[j]! += r[j]! / rows.length;
  for (const r of rows) for (let j = 0; j < d; j++) scale[j]! += (r[j]! - mean[j]!) ** 2 / rows.length;
  // A column that never changes (a feature the 8-bit model always gives the same value) has only
  // rounding error for a spread: dividing by it would blow its weight up when folded.
  for (let j = 0; j < d; j++) scale[j] = Math.sqrt(scale[j]!) > 1e-6 ? Math.sqrt(scale[j]!) : 1;
  return { mean, scale, apply: (r: Float64Array) => r.map((v, j) => (v - mean[j]!) / scale[j]!) };
}

function fit(rows: Float64Array[], y: number[], weights: number[], lambda: number) {
  const s = standardiser(rows);
  const fitted = fitSoftmax(rows.map(s.apply), y, classes.length, { lambda, rowWeights: weights });
  return { model: fitted, ...s };
}

/** The fitted model as the tagger reads it: standardisation folded into weights and bias. */
function folded(f: ReturnType<typeof fit>): Pick<SceneHead, 'weights' | 'bias'> {
  const weights = f.model.weights.map((w) => Array.from(w, (v, j) => v / f.scale[j]!));
  const bias = Array.from(
    f.model.bias,
    (b, c) => b - weights[c]!.reduce((sum, w, j) => sum + w * f.mean[j]!, 0),
  );
  return { weights, bias };
}

const inputs = calibration.map((s) => headFeatures(s, INPUTS));

/** Out-of-fold probabilities: each photo predicted by a head fitted without its fold. */
function outOfFold(x: Float64Array[], lambda: number): Float64Array[] {
  const out: Float64Array[] = new Array(x.length);
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = x.map((_, i) => i).filter((i) => i % FOLDS !== fold);
    const f = fit(
      train.map((i) => x[i]!),
      train.map((i) => labels[i]!),
      train.map((i) => rowWeights[i]!),
      lambda,
    );
    for (let i = fold; i < x.length; i += FOLDS) out[i] = predict(f.model as SoftmaxModel, f.apply(x[i]!));
  }
  return out;
}

console.log(
  `calibration half: ${calibration.length} photos (${TRAINED_SETS.map((set) => `${set} ${calibration.filter((s) => s.set === set).length}`).join(', ')}); classes ${classes.join(', ')}; ` +
    `judged on ${judged.length} (rooms-train is trained on only)`,
);
console.log(
  `5-fold cross-validation on the calibration half (${INPUTS}): lambda  right (top value)  log loss`,
);
let best = { lambda: 0, right: 0, loss: Number.POSITIVE_INFINITY, oof: [] as Float64Array[] };
for (const lambda of LAMBDAS) {
  const oof = outOfFold(inputs, lambda);
  const right = judged.filter((i) => oof[i]!.indexOf(Math.max(...oof[i]!)) === labels[i]).length;
  const loss =
    -judged.reduce((sum, i) => sum + Math.log(Math.max(1e-12, oof[i]![labels[i]!]!)), 0) / judged.length;
  const rooms = judged.filter((i) => calibration[i]!.set === 'rooms');
  const roomsRight = rooms.filter((i) => oof[i]!.indexOf(Math.max(...oof[i]!)) === labels[i]).length;
  console.log(
    `${String(lambda).padStart(6)}  ${((100 * right) / judged.length).toFixed(1).padStart(6)} % (eval/rooms ${roomsRight}/${rooms.length})  ${loss.toFixed(3)}`,
  );
  // The lowest out-of-fold log loss: smoother than the count of photos right.
  if (loss < best.loss) best = { lambda, right, loss, oof };
}

const thresholds = chooseThresholds(
  judged.map((i) => calibration[i]!),
  judged.map((i) => best.oof[i]!),
  classes,
);
const final = fit(inputs, labels, rowWeights, best.lambda);
const round = (v: number) => Number(v.toPrecision(6));
const { weights, bias } = folded(final);
const body = {
  classes,
  inputs: INPUTS,
  weights: weights.map((w) => w.map(round)),
  bias: bias.map(round),
  threshold: thresholds.threshold,
  sceneOnlyThreshold: thresholds.sceneOnlyThreshold,
  minSceneMass: thresholds.minSceneMass,
};
const version = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 12);
const head: SceneHead = {
  ...body,
  version,
  trained: {
    by: 'npm run train:photo-head (eval/train-head.ts)',
    photos: `calibration half of eval/samples.ts: ${TRAINED_SETS.map((set) => `${set} ${calibration.filter((s) => s.set === set).length}`).join(', ')}`,
    houses: env.EVAL_HOUSES_DIR ? `Houses dataset, houses 1..${env.EVAL_HOUSES_LIMIT ?? 'all'}` : 'not used',
    roomsTraining: training.length
      ? `Rooms dataset training split (kidademoraisaly/house_room_classifier@e9d8095 data/train), ${training.length} photos`
      : 'not used',
    rowWeights: Object.fromEntries(
      [...perCell.keys()]
        .sort()
        .map((key) => [key, round(rowWeights[calibration.findIndex((s) => cell(s) === key)]!)]),
    ),
    lambda: best.lambda,
    crossValidatedRight: round(best.right / judged.length),
    thresholdRule: thresholds.rule,
  },
};
fs.writeFileSync(
  target,
  await prettier.format(JSON.stringify(head), {
    ...(await prettier.resolveConfig(target)),
    filepath: target,
  }),
);
console.log(
  `chosen: lambda ${best.lambda}; threshold ${thresholds.threshold}, scene-only threshold ${thresholds.sceneOnlyThreshold}, scene mass ${thresholds.minSceneMass} (${thresholds.rule})`,
);
const judgedRows = judged.map((i) => calibration[i]!);
const check = judgedRows.filter((s) => sceneTags(s, head.threshold, head).image_of === s.expected).length;
console.log(
  `calibration half with the final head (fitted on it, so optimistic): ${check}/${judgedRows.length} right; ` +
    `abstained ${judgedRows.filter((s) => sceneTags(s, head.threshold, head).image_of === ABSTAIN).length}`,
);
console.log(`wrote ${path.relative(process.cwd(), target)} (version ${version})`);
