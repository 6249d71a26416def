// The learned part of the photo tagging: a multinomial logistic regression over the logarithms of
// the scene model's 365 Places365 probabilities and, when the head was trained so, the 512 pooled
// features those probabilities are computed from, one output per ImageOf value it was trained on
// (the values of the labelled photos in eval/: rooms and house fronts). Trained by
// `npm run train:photo-head` (eval/train-head.ts) on the calibration half of those photos only
// and the training split of the room photos' dataset (never evaluated); the weights, the abstain
// threshold chosen on the calibration half and what they were trained on are in
// scene-head.json, read here once (no download at run time).
import head from './scene-head.json' with { type: 'json' };

/** What the head reads: the logarithms of the 365 probabilities, then (`+features`) the 512 features. */
export type HeadInputs = 'log-probabilities' | 'log-probabilities+features';

export interface SceneHead {
  /** The ImageOf value of each output. */
  classes: string[];
  inputs: HeadInputs;
  /** classes × inputs (365 or 877): the standardisation of the inputs is folded into these. */
  weights: number[][];
  bias: number[];
  /** Below this probability of its best value the head abstains (chosen on the calibration half). */
  threshold: number;
  /**
   * A value the head was not trained on (Pool, Garage, …) is still given when the hand mapping of
   * scene-tags.ts puts at least this much summed probability on it, and more than on any other.
   */
  sceneOnlyThreshold: number;
  /**
   * Below this much probability on the scenes of a property (every scene of the hand mapping) the
   * photo shows nothing the tagger knows (noise, a blank picture): Other, whatever the head says.
   */
  minSceneMass: number;
  /** sha256 prefix of the weights: part of the tag model version every row records. */
  version: string;
  trained: Record<string, unknown>;
}

export const SCENE_HEAD = head as SceneHead;

/** The scene model's answer for one photo (scene-model.ts). */
export interface SceneScores {
  probabilities: ArrayLike<number>;
  features: ArrayLike<number>;
}

/** Smallest probability whose logarithm the head reads: the model's rounding noise stays flat below it. */
const FLOOR = 1e-6;

export function headFeatures({ probabilities, features }: SceneScores, inputs: HeadInputs): Float64Array {
  const logs = probabilities.length;
  const x = new Float64Array(logs + (inputs === 'log-probabilities' ? 0 : features.length));
  for (let i = 0; i < logs; i++) x[i] = Math.log(Math.max(FLOOR, probabilities[i]!));
  for (let i = logs; i < x.length; i++) x[i] = features[i - logs]!;
  return x;
}

/** Probability per trained value, most likely first. */
export function headScores(scene: SceneScores, model: SceneHead = SCENE_HEAD): [string, number][] {
  const x = headFeatures(scene, model.inputs);
  const z = model.classes.map((_, c) => {
    const w = model.weights[c]!;
    let s = model.bias[c]!;
    for (let j = 0; j < x.length; j++) s += w[j]! * x[j]!;
    return s;
  });
  const max = Math.max(...z);
  const e = z.map((v) => Math.exp(v - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return model.classes.map((tag, c): [string, number] => [tag, e[c]! / sum]).sort((a, b) => b[1] - a[1]);
}
