// From Places365 scene probabilities to RESO ImageOf tags (stream/images/scene-tags.ts): sums per
// value on the photo's indoor or outdoor side, the threshold, abstention as Other rather than a
// guessed label; FloorPlan by the pixels (floor-plan.ts); the model version each row records.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodePhoto } from '../../stream/images/decode.ts';
import { isFloorPlan } from '../../stream/images/floor-plan.ts';
import { SCENE_MODEL_ID } from '../../stream/images/scene-model.ts';
import {
  ABSTAIN,
  isIndoorScene,
  PLACES_TO_IMAGE_OF,
  sceneTags,
  TAG_MODEL,
} from '../../stream/images/scene-tags.ts';
import { drawnFloorPlans } from '../../eval/floor-plans.ts';

function probabilities(values: Record<number, number>): Float32Array {
  const p = new Float32Array(365);
  for (const [index, value] of Object.entries(values)) p[Number(index)] = value;
  return p;
}

describe('scene tags', () => {
  it('sums the scenes of one ImageOf value (happy)', () => {
    // bedroom 0.3 + hotel_room 0.15 + dorm_room 0.05 → Bedroom 0.5; living_room 0.35 → LivingRoom.
    const result = sceneTags(probabilities({ 52: 0.3, 182: 0.15, 124: 0.05, 215: 0.35 }), 0.3);
    expect(result.tags).toEqual([
      { tag: 'Bedroom', confidence: 0.5 },
      { tag: 'LivingRoom', confidence: 0.35 },
    ]);
    expect(result.image_of).toBe('Bedroom');
  });

  it('gives only values of the side where most of the probability is (indoor or outdoor)', () => {
    // house 0.35 + patio 0.3 + yard 0.1 outdoors outweigh living_room 0.25 indoors.
    const result = sceneTags(probabilities({ 183: 0.35, 259: 0.3, 362: 0.1, 215: 0.25 }), 0.2);
    expect(result.image_of).toBe('FrontOfStructure');
    expect(result.tags.map((t) => t.tag)).toEqual(['FrontOfStructure', 'Patio']);
  });

  it('abstains below the threshold: Other and no tags, never the best guess (error)', () => {
    expect(sceneTags(probabilities({ 52: 0.25, 215: 0.2, 27: 0.55 }), 0.3)).toEqual({
      tags: [],
      image_of: ABSTAIN,
    });
    expect(sceneTags(probabilities({ 0: 0.99 }), 0.3).image_of).toBe(ABSTAIN); // airfield
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
    expect(SCENE_MODEL_ID).toBe(`places365-wideresnet18@${sha!.slice(0, 12)}`);
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
