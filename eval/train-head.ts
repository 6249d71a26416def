// `npm run train:photo-head`: trains the tagger's head (stream/images/scene-head.ts) and writes
// stream/images/scene-head.json. Inputs: the scene model's probabilities of the labelled photos of
// eval/samples.ts (eval/rooms and, with EVAL_HOUSES_DIR, the Houses dataset), **calibration half
// only**: the held-out half is never read here, so `npm run eval:photos` reports on photos the head
// has not seen. On that half, 5-fold cross-validation chooses the inputs (the logarithms of the 365
// scene probabilities, with or without the model's 512 pooled features) and the L2 penalty (lowest
// log loss out of fold), and the out-of-fold probabilities choose the thresholds (head-thresholds.ts).
// Deterministic: the same photos give the same file.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings } from '../infra/local/settings.mjs';
import { photoEnvSchema } from '../stream/images/photo-env.ts';
import { headFeatures, type HeadInputs, type SceneHead } from '../stream/images/scene-head.ts';
import { loadSceneModel } from '../stream/images/scene-model.ts';
import { ABSTAIN, sceneTags } from '../stream/images/scene-tags.ts';
import { chooseThresholds } from './head-thresholds.ts';
import { evaluationSamples, scoreSamples } from './samples.ts';
import { fitSoftmax, predict, type SoftmaxModel } from './softmax-regression.ts';

const root = path.dirname(fileURLToPath(import.meta.url));
const target = path.join(root, '..', 'stream', 'images', 'scene-head.json');
const env = photoEnvSchema.parse(process.env);
if (!process.env.EVAL_HOUSES_DIR)
  process.stderr.write('EVAL_HOUSES_DIR is not set: training on eval/rooms alone (no house fronts)\n');
const modelPath = env.PHOTO_MODEL_PATH ?? (await ensurePhotoModel(readSettings(process.env)));
const model = await loadSceneModel(modelPath);
const { scored } = await scoreSamples(await evaluationSamples(process.env), {
  model,
  modelPath,
  env,
  cachedOnly: process.env.EVAL_CACHED_ONLY === '1',
});
await model.release();

const TRAINED_SETS = ['rooms', 'houses'];
const calibration = scored.filter((s) => s.half === 'calibration' && TRAINED_SETS.includes(s.set));
const classes = [...new Set(calibration.map((s) => s.expected))].sort();
const labels = calibration.map((s) => classes.indexOf(s.expected));
const FOLDS = 5;
const LAMBDAS = [0.01, 0.03, 0.1];
const INPUTS: HeadInputs[] = ['log-probabilities', 'log-probabilities+features'];

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

function fit(rows: Float64Array[], y: number[], lambda: number) {
  const s = standardiser(rows);
  const fitted = fitSoftmax(rows.map(s.apply), y, classes.length, { lambda });
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

const inputsOf = (kind: HeadInputs) => calibration.map((s) => headFeatures(s, kind));

/** Out-of-fold probabilities: each photo predicted by a head fitted without its fold. */
function outOfFold(x: Float64Array[], lambda: number): Float64Array[] {
  const out: Float64Array[] = new Array(x.length);
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = x.map((_, i) => i).filter((i) => i % FOLDS !== fold);
    const f = fit(
      train.map((i) => x[i]!),
      train.map((i) => labels[i]!),
      lambda,
    );
    for (let i = fold; i < x.length; i += FOLDS) out[i] = predict(f.model as SoftmaxModel, f.apply(x[i]!));
  }
  return out;
}

console.log(
  `calibration half: ${calibration.length} photos (${TRAINED_SETS.map((set) => `${set} ${calibration.filter((s) => s.set === set).length}`).join(', ')}); classes ${classes.join(', ')}`,
);
console.log('5-fold cross-validation on the calibration half: inputs  lambda  right (top value)  log loss');
let best = {
  inputs: INPUTS[0]!,
  lambda: 0,
  right: 0,
  loss: Number.POSITIVE_INFINITY,
  oof: [] as Float64Array[],
};
for (const kind of INPUTS) {
  const x = inputsOf(kind);
  for (const lambda of LAMBDAS) {
    const oof = outOfFold(x, lambda);
    const right = oof.filter((p, i) => p.indexOf(Math.max(...p)) === labels[i]).length;
    const loss = -oof.reduce((sum, p, i) => sum + Math.log(Math.max(1e-12, p[labels[i]!]!)), 0) / oof.length;
    console.log(
      `${kind.padStart(30)}  ${String(lambda).padStart(6)}  ${((100 * right) / oof.length).toFixed(1).padStart(6)} %  ${loss.toFixed(3)}`,
    );
    // The lowest out-of-fold log loss: smoother than the count of photos right.
    if (loss < best.loss) best = { inputs: kind, lambda, right, loss, oof };
  }
}

const thresholds = chooseThresholds(calibration, best.oof, classes);
const final = fit(inputsOf(best.inputs), labels, best.lambda);
const round = (v: number) => Number(v.toPrecision(6));
const { weights, bias } = folded(final);
const body = {
  classes,
  inputs: best.inputs,
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
    houses: process.env.EVAL_HOUSES_DIR
      ? `Houses dataset, houses 1..${process.env.EVAL_HOUSES_LIMIT ?? 'all'}`
      : 'not used',
    lambda: best.lambda,
    crossValidatedRight: round(best.right / calibration.length),
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
  `chosen: ${best.inputs}, lambda ${best.lambda}; threshold ${thresholds.threshold}, scene-only threshold ${thresholds.sceneOnlyThreshold}, scene mass ${thresholds.minSceneMass} (${thresholds.rule})`,
);
const check = calibration.filter((s) => sceneTags(s, head.threshold, head).image_of === s.expected).length;
console.log(
  `calibration half with the final head (fitted on it, so optimistic): ${check}/${calibration.length} right; ` +
    `abstained ${calibration.filter((s) => sceneTags(s, head.threshold, head).image_of === ABSTAIN).length}`,
);
console.log(`wrote ${path.relative(process.cwd(), target)} (version ${version})`);
