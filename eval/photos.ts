// `npm run eval:photos`: the photo tagging (decode → floor-plan rule → Places365 scene model →
// learned head → ImageOf, stream/images/) against the labelled photos of eval/samples.ts, through
// the code the image process runs. The head (stream/images/scene-head.json) was trained on the
// calibration half and the training split of eval/rooms' dataset, its threshold chosen on the
// calibration half (`npm run train:photo-head`); every figure here is
// reported on the held-out half: confusion matrix, per-tag precision and recall, abstain rate,
// beside the hand mapping alone (the tagger before the head) for comparison. EVAL_THRESHOLD=<x>
// reports the head at x instead of its threshold; EVAL_VERBOSE=1 lists the held-out photos it
// got wrong.
import { FLOOR_PLAN, isFloorPlan } from '../stream/images/floor-plan.ts';
import { SCENE_HEAD } from '../stream/images/scene-head.ts';
import { loadSceneModel } from '../stream/images/scene-model.ts';
import { ABSTAIN, sceneScores, sceneTags, tagsBeforeModel, TAG_MODEL } from '../stream/images/scene-tags.ts';
import { ensurePhotoModel } from '../infra/local/photo-model.mjs';
import { readSettings } from '../infra/local/settings.mjs';
import { evalEnv as env } from './env.ts';
import { evaluationSamples, scoreSamples, type Scored } from './samples.ts';

const modelPath = env.PHOTO_MODEL_PATH ?? (await ensurePhotoModel(readSettings()));
const model = await loadSceneModel(modelPath);
const { scored, seconds } = await scoreSamples(await evaluationSamples(env), {
  model,
  modelPath,
  env,
  cachedOnly: env.EVAL_CACHED_ONLY,
});
await model.release();

type Verdict = (s: Scored) => string;

/** What the image process stores for this photo now (tagPhoto, on the cached probabilities). */
const tagger =
  (threshold: number): Verdict =>
  (s) =>
    (tagsBeforeModel(s) ?? sceneTags(s, threshold)).image_of;

/** The tagger before the head: the hand mapping's best value when its summed probability reaches the threshold. */
const handMapping =
  (threshold: number): Verdict =>
  (s) => {
    if (isFloorPlan(s)) return 'FloorPlan';
    const [best] = sceneScores(s.probabilities);
    return best && best[1] >= threshold ? best[0] : ABSTAIN;
  };

function figures(rows: Scored[], verdict: Verdict) {
  const verdicts = rows.map((s) => ({ ...s, got: verdict(s) }));
  const right = verdicts.filter((v) => v.got === v.expected).length;
  const abstained = verdicts.filter((v) => v.got === ABSTAIN && v.expected !== ABSTAIN).length;
  const answered = verdicts.filter((v) => v.got !== ABSTAIN).length;
  const rightAnswered = verdicts.filter((v) => v.got !== ABSTAIN && v.got === v.expected).length;
  return { verdicts, right, abstained, answered, rightAnswered, total: rows.length };
}

/** The hand mapping's rule: the highest threshold at which at most 10 % of the calibration half abstain. */
function handMappingThreshold(rows: Scored[]): number {
  let best = 0;
  for (let t = 0; t <= 0.9001; t += 0.01)
    if (figures(rows, handMapping(t)).abstained <= 0.1 * rows.length) best = Math.round(t * 100) / 100;
  return best;
}

const pct = (x: number) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '–');

function summary(rows: Scored[], verdict: Verdict): string {
  const f = figures(rows, verdict);
  return (
    `right ${f.right}/${f.total} (${pct(f.right / f.total)}); abstained ${f.abstained} (${pct(f.abstained / f.total)}); ` +
    `right when answering ${f.rightAnswered}/${f.answered} (${pct(f.rightAnswered / f.answered)})`
  );
}

function report(title: string, rows: Scored[], verdict: Verdict) {
  if (!rows.length) return;
  const f = figures(rows, verdict);
  console.log(`\n== ${title}: ${f.total} photos ==`);
  console.log(summary(rows, verdict));
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

const threshold = env.EVAL_THRESHOLD ?? SCENE_HEAD.threshold;
const calibration = scored.filter((s) => s.half === 'calibration' && s.set !== 'curated');
const heldOut = scored.filter((s) => s.half === 'held-out');
const before = handMappingThreshold(calibration);
const sets = [...new Set(scored.map((s) => s.set))];
console.log(`tag model ${TAG_MODEL} (${modelPath})`);
console.log(
  `${scored.length} photos decoded and classified in ${seconds.toFixed(1)} s; sets: ` +
    sets.map((set) => `${set} ${scored.filter((s) => s.set === set).length}`).join(', '),
);
console.log(
  `head: ${SCENE_HEAD.classes.join(', ')}; trained on ${String(SCENE_HEAD.trained.photos)} (${String(SCENE_HEAD.trained.houses)})`,
);
console.log(
  `threshold ${threshold} ${env.EVAL_THRESHOLD !== undefined ? '(EVAL_THRESHOLD)' : '(chosen on the calibration half by train:photo-head)'}; ` +
    `scene-only threshold ${SCENE_HEAD.sceneOnlyThreshold}; floor-plan rule ${JSON.stringify(FLOOR_PLAN)}`,
);
for (const set of sets)
  report(
    `held-out half, ${set}`,
    heldOut.filter((s) => s.set === set),
    tagger(threshold),
  );
report('held-out half, every set', heldOut, tagger(threshold));

console.log(
  `\nbefore (hand mapping alone, threshold ${before} chosen on the calibration half), held-out half:`,
);
for (const set of sets)
  console.log(
    `  ${set.padEnd(8)} ${summary(
      heldOut.filter((s) => s.set === set),
      handMapping(before),
    )}`,
  );
console.log(`  ${'every'.padEnd(8)} ${summary(heldOut, handMapping(before))}`);
console.log(
  `\ncalibration half with the head (trained on these photos, so optimistic): ${summary(calibration, tagger(threshold))}`,
);
const photos = scored.filter((s) => s.set !== 'plans');
console.log(
  `floor-plan rule: ${scored.filter((s) => s.set === 'plans' && isFloorPlan(s)).length}/${scored.filter((s) => s.set === 'plans').length} drawn plans, ` +
    `${photos.filter((s) => isFloorPlan(s)).length}/${photos.length} photos called FloorPlan`,
);
console.log('\nthreshold sweep on the held-out half: threshold  abstained  right  wrong');
for (const t of [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) {
  const f = figures(heldOut, tagger(t));
  console.log(
    `${t.toFixed(2).padStart(28)}  ${pct(f.abstained / f.total).padStart(9)}  ${pct(f.right / f.total).padStart(7)}  ${pct((f.answered - f.rightAnswered) / f.total).padStart(6)}`,
  );
}
if (env.EVAL_VERBOSE)
  for (const s of heldOut) {
    const got = tagger(threshold)(s);
    if (got !== s.expected)
      console.log(`${got === ABSTAIN ? 'abs' : 'BAD'} ${s.set} ${s.name} expected ${s.expected} got ${got}`);
  }
