// From Places365 scene probabilities to RESO ImageOf tags (stream/images/scene-tags.ts): the learned
// head's values and threshold, abstention as Other rather than a guessed label, the hand mapping's
// sums per value on the photo's indoor or outdoor side for the values the head does not know;
// FloorPlan by the pixels (floor-plan.ts); the model version each row records.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodePhoto } from '../../stream/images/decode.ts';
import { isFloorPlan } from '../../stream/images/floor-plan.ts';
import { SCENE_MODEL_ID } from '../../stream/images/scene-model.ts';
import { photoEnvSchema } from '../../stream/images/photo-env.ts';
import { SCENE_HEAD, type SceneHead } from '../../stream/images/scene-head.ts';
import {
  ABSTAIN,
  isIndoorScene,
  PLACES_TO_IMAGE_OF,
  sceneScores,
  sceneTags,
  TAG_MODEL,
} from '../../stream/images/scene-tags.ts';
import { drawnFloorPlans } from '../../eval/floor-plans.ts';

function probabilities(values: Record<number, number>): Float32Array {
  const p = new Float32Array(365);
  for (const [index, value] of Object.entries(values)) p[Number(index)] = value;
  return p;
}

/** The scene model's answer with these probabilities (the test head does not read the features). */
const scene = (values: Record<number, number>) => ({
  probabilities: probabilities(values),
  features: new Float32Array(512),
});

describe('scene tags', () => {
  // A head over two values that reads only the logarithms of bedroom (52) and kitchen (203).
  const weights = (bedroom: number, kitchen: number) => {
    const w = new Array<number>(365).fill(0);
    w[52] = bedroom;
    w[203] = kitchen;
    return w;
  };
  const head: SceneHead = {
    ...SCENE_HEAD,
    classes: ['Bedroom', 'Kitchen'],
    inputs: 'log-probabilities',
    weights: [weights(1, -1), weights(-1, 1)],
    bias: [0, 0],
    sceneOnlyThreshold: 0.5,
  };

  it("happy: gives the head's values at or above the threshold, most likely first", () => {
    // log(0.6) − log(0.1) apart: Bedroom 0.973, Kitchen 0.027.
    const result = sceneTags(scene({ 52: 0.6, 203: 0.1 }), 0.5, head);
    expect(result).toEqual({ tags: [{ tag: 'Bedroom', confidence: 0.973 }], image_of: 'Bedroom' });
    expect(sceneTags(scene({ 52: 0.3, 203: 0.3 }), 0.5, head).tags.map((t) => t.tag)).toEqual([
      'Bedroom',
      'Kitchen',
    ]);
  });

  it("reads the model's pooled features after the 365 log-probabilities when trained so", () => {
    // Feature 0 alone decides: the same probabilities give Kitchen with it and Bedroom without it.
    const w = (feature: number) => [
      ...new Array<number>(365).fill(0),
      feature,
      ...new Array<number>(511).fill(0),
    ];
    const featureHead: SceneHead = {
      ...head,
      inputs: 'log-probabilities+features',
      weights: [w(-2), w(2)],
      bias: [1, -1],
    };
    const features = new Float32Array(512);
    const probabilities = scene({ 52: 0.5 }).probabilities;
    expect(sceneTags({ probabilities, features }, 0.5, featureHead).image_of).toBe('Bedroom');
    features[0] = 3;
    expect(sceneTags({ probabilities, features }, 0.5, featureHead).image_of).toBe('Kitchen');
  });

  it('error: abstains below the threshold: Other and no tags, never the best guess', () => {
    expect(sceneTags(scene({ 52: 0.3, 203: 0.2 }), 0.7, head)).toEqual({
      tags: [],
      image_of: ABSTAIN,
    });
  });

  it('gives a value the head was not trained on when the hand mapping leads with it', () => {
    // swimming_pool/outdoor 0.7 (outdoor side): Pool, which the head cannot say.
    expect(sceneTags(scene({ 326: 0.7, 52: 0.05 }), 0.5, head)).toEqual({
      tags: [{ tag: 'Pool', confidence: 0.7 }],
      image_of: 'Pool',
    });
    // Below the head's sceneOnlyThreshold the head decides.
    expect(sceneTags(scene({ 326: 0.4, 52: 0.35, 203: 0.01 }), 0.5, head).image_of).toBe('Bedroom');
  });

  it('sums the scenes of one value on the side where most of the probability is (hand mapping)', () => {
    // bedroom 0.3 + hotel_room 0.15 + dorm_room 0.05 → Bedroom 0.5; living_room 0.35 → LivingRoom.
    const [bedroom, living] = sceneScores(probabilities({ 52: 0.3, 182: 0.15, 124: 0.05, 215: 0.35 }));
    expect([bedroom![0], living![0]]).toEqual(['Bedroom', 'LivingRoom']);
    expect(bedroom![1]).toBeCloseTo(0.5, 5);
    expect(living![1]).toBeCloseTo(0.35, 5);
    // house 0.35 + patio 0.3 + yard 0.1 outdoors outweigh living_room 0.25 indoors.
    const outside = sceneScores(probabilities({ 183: 0.35, 259: 0.3, 362: 0.1, 215: 0.25 }));
    expect(outside.slice(0, 2).map(([t]) => t)).toEqual(['FrontOfStructure', 'Patio']);
    expect(outside.map(([t]) => t)).not.toContain('LivingRoom');
  });

  it('ships a head trained on the calibration half, with its threshold as the default', () => {
    expect(SCENE_HEAD.classes).toEqual(
      expect.arrayContaining(['Bathroom', 'Bedroom', 'DiningRoom', 'Kitchen', 'LivingRoom']),
    );
    expect(SCENE_HEAD.weights).toHaveLength(SCENE_HEAD.classes.length);
    const inputs = SCENE_HEAD.inputs === 'log-probabilities' ? 365 : 365 + 512;
    for (const w of SCENE_HEAD.weights) expect(w).toHaveLength(inputs);
    expect(photoEnvSchema.parse({}).PHOTO_TAG_THRESHOLD).toBe(SCENE_HEAD.threshold);
    expect(TAG_MODEL).toContain(SCENE_HEAD.version);
  });

  it('maps indoor scenes to rooms and outdoor scenes to the outside, by the Places365 flag', () => {
    for (const [index, { name }] of Object.entries(PLACES_TO_IMAGE_OF)) {
      if (['bathroom', 'bedroom', 'kitchen', 'living_room', 'dining_room', 'closet'].includes(name))
        expect(isIndoorScene(Number(index))).toBe(true);
      if (['house', 'patio', 'porch', 'yard', 'swimming_pool/outdoor'].includes(name))
        expect(isIndoorScene(Number(index))).toBe(false);
    }
    expect(new Set(Object.values(PLACES_TO_IMAGE_OF).map((e) => e.tag))).toContain('Pool');
  });

  it('records the model file it was written by (the pinned checksum)', () => {
    const provisioning = fs.readFileSync(
      new URL('../../infra/local/photo-model.mjs', import.meta.url),
      'utf8',
    );
    const sha = /PHOTO_MODEL_SHA256 = '([0-9a-f]{64})'/.exec(provisioning)?.[1];
    expect(SCENE_MODEL_ID).toBe(`places365-wideresnet18-int8@${sha!.slice(0, 12)}`);
    expect(TAG_MODEL.startsWith(SCENE_MODEL_ID)).toBe(true);
  });
});

describe('floor plans', () => {
  const limits = { maxPixels: 40_000_000, minSide: 32 };

  it('calls drawn plans FloorPlan and room photos not', async () => {
    for (const plan of (await drawnFloorPlans()).slice(0, 4)) {
      const decoded = await decodePhoto(plan, limits);
      expect(decoded.ok && isFloorPlan(decoded.photo)).toBe(true);
    }
    for (const file of ['kitchen.jpg', 'bedroom-2.jpg', 'empty-room.jpg']) {
      const body = fs.readFileSync(new URL(`../../eval/photos/${file}`, import.meta.url));
      const decoded = await decodePhoto(body, limits);
      expect(decoded.ok && isFloorPlan(decoded.photo)).toBe(false);
    }
  });
});
