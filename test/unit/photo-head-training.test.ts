// How the tagger's head is trained (eval/train-head.ts): row weights in the logistic regression,
// the abstain threshold chosen on out-of-fold probabilities, and the training split's photos that
// are near copies of evaluated photos left out.
import fs from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { chooseThresholds } from '../../eval/head-thresholds.ts';
import { withoutNearCopies } from '../../eval/rooms-train.ts';
import type { Sample, Scored } from '../../eval/samples.ts';
import { fitSoftmax } from '../../eval/softmax-regression.ts';

describe('training the photo head', () => {
  it('weighs a row of weight 2 as that row twice', () => {
    const x = [
      [1, 0],
      [0, 1],
      [1, 1],
      [0.5, -1],
    ].map((r) => Float64Array.from(r));
    const labels = [0, 1, 1, 0];
    const weighted = fitSoftmax(x, labels, 2, { lambda: 0.01, steps: 50, rowWeights: [2, 1, 1, 1] });
    const repeated = fitSoftmax([x[0]!, ...x], [0, ...labels], 2, { lambda: 0.01, steps: 50 });
    for (let c = 0; c < 2; c++)
      for (let j = 0; j < 2; j++) expect(weighted.weights[c]![j]).toBeCloseTo(repeated.weights[c]![j]!, 9);
    const unweighted = fitSoftmax(x, labels, 2, { lambda: 0.01, steps: 50 });
    expect(unweighted.weights[0]![0]).not.toBeCloseTo(weighted.weights[0]![0]!, 3);
  });

  it('raises the threshold as long as every photo keeps its answer, so tags list no idle values', () => {
    // Every photo right at its top value: abstaining never pays, and any threshold up to the lowest
    // top probability (0.705) gives the same answers; above it a photo would abstain.
    const probabilities = new Array<number>(365).fill(0);
    probabilities[52] = 0.5; // bedroom: enough of a property for the scene-mass rule
    const row = (expected: string): Scored => ({
      set: 'rooms',
      name: expected,
      expected,
      half: 'calibration',
      colour: { white: 0, dark: 0, chroma: 0.2 },
      brightness: 0.5,
      probabilities,
      features: [],
    });
    const rows = [row('Bedroom'), row('Bedroom'), row('Kitchen')];
    const head = [
      [0.8, 0.2],
      [0.9, 0.1],
      [0.295, 0.705],
    ];
    expect(chooseThresholds(rows, head, ['Bedroom', 'Kitchen']).threshold).toBe(0.7);
  });

  it('leaves out training photos that are near copies of evaluated ones', async () => {
    const file = (name: string) => fs.readFileSync(new URL(`../../eval/photos/${name}`, import.meta.url));
    const sample = (name: string, bytes: Buffer): Sample => ({
      set: 'rooms-train',
      name,
      expected: 'Kitchen',
      bytes: async () => bytes,
    });
    const copy = await sharp(file('kitchen.jpg')).resize(300).flop().jpeg({ quality: 60 }).toBuffer();
    const { kept, dropped } = await withoutNearCopies(
      [sample('mirrored smaller copy', copy), sample('another photo', file('bedroom.jpg'))],
      [sample('kitchen.jpg', file('kitchen.jpg'))],
    );
    expect(kept.map((s) => s.name)).toEqual(['another photo']);
    expect(dropped).toEqual([{ name: 'mirrored smaller copy', of: 'kitchen.jpg', bits: expect.any(Number) }]);
  });
});
