// The two thresholds of the tagger's head (stream/images/scene-head.ts), chosen by
// eval/train-head.ts on out-of-fold probabilities of the calibration half:
// - sceneOnlyThreshold: the lowest (0.30, 0.35, … 0.95) at which at most 1 % of the calibration
//   photos, all of values the head knows, are given a value only the hand mapping knows (each such
//   answer there is wrong);
// - minSceneMass: the highest (0, 0.05, … 0.3) under which at most 1 % of the calibration photos
//   fall (probability on the scenes of a property; below it a photo shows nothing the tagger knows);
// - threshold: the one with the fewest wrong answers plus half the abstentions, with at most 10 %
//   abstaining (a wrong label misleads where Other only says nothing, so abstaining pays when at
//   least two of three photos it turns into Other were wrong); the lowest of equals, raised as long
//   as every photo keeps its answer (a head that abstaining never helps still lists only values
//   that could be a photo's answer in `tags`).
import { ABSTAIN, sceneMass, tagsFrom } from '../stream/images/scene-tags.ts';
import type { Scored } from './samples.ts';

const MAX_ABSTAIN = 0.1;
const MAX_SCENE_ONLY = 0.01;
const MAX_SCENELESS = 0.01;

export function chooseThresholds(rows: Scored[], headProbabilities: ArrayLike<number>[], classes: string[]) {
  const ranked = headProbabilities.map((p) =>
    classes.map((tag, c): [string, number] => [tag, p[c]!]).sort((a, b) => b[1] - a[1]),
  );
  let minSceneMass = 0;
  for (let m = 0; m <= 0.30001; m += 0.05)
    if (rows.filter((s) => sceneMass(s.probabilities) < m).length <= MAX_SCENELESS * rows.length)
      minSceneMass = Math.round(m * 100) / 100;
  const verdicts = (threshold: number, sceneOnlyThreshold: number) =>
    rows.map(
      (s, i) =>
        tagsFrom(s.probabilities, ranked[i]!, threshold, { classes, sceneOnlyThreshold, minSceneMass })
          .image_of,
    );
  let sceneOnlyThreshold = 0.95;
  for (let t = 0.95; t >= 0.2999; t -= 0.05) {
    const given = verdicts(1.01, t).filter((v) => v !== ABSTAIN).length;
    if (given <= MAX_SCENE_ONLY * rows.length) sceneOnlyThreshold = Math.round(t * 100) / 100;
  }
  let threshold = 0;
  let bestCost = Number.POSITIVE_INFINITY;
  let bestVerdicts = '';
  for (let t = 0; t <= 0.95001; t += 0.01) {
    const v = verdicts(t, sceneOnlyThreshold);
    const abstained = v.filter((x) => x === ABSTAIN).length;
    const wrong = v.filter((x, i) => x !== ABSTAIN && x !== rows[i]!.expected).length;
    const cost = wrong + abstained / 2;
    // The same answers at a higher threshold: `tags` then lists fewer values no photo was given.
    const same = v.join() === bestVerdicts;
    if (abstained <= MAX_ABSTAIN * rows.length && (cost < bestCost || same)) {
      bestCost = cost;
      bestVerdicts = v.join();
      threshold = Math.round(t * 100) / 100;
    }
  }
  return {
    threshold,
    sceneOnlyThreshold,
    minSceneMass,
    rule: `threshold: fewest wrong + abstained/2 with ≤ ${MAX_ABSTAIN * 100} % abstaining, the highest with the same answers; scene-only: lowest with ≤ ${MAX_SCENE_ONLY * 100} % of photos given such a value; scene mass: highest with ≤ ${MAX_SCENELESS * 100} % of photos under it (out-of-fold, calibration half)`,
  };
}
