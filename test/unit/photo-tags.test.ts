// From ImageNet probabilities to RESO ImageOf tags (stream/images/room-tags.ts): sums per value,
// the threshold, and abstention as Other rather than a guessed label.
import { describe, expect, it } from 'vitest';
import { ABSTAIN, IMAGENET_TO_IMAGE_OF, roomTags } from '../../stream/images/room-tags.ts';

function probabilities(values: Record<number, number>): Float32Array {
  const p = new Float32Array(1000);
  for (const [index, value] of Object.entries(values)) p[Number(index)] = value;
  return p;
}

describe('room tags', () => {
  it('sums the classes of one ImageOf value (happy)', () => {
    // washbasin 0.2 + bathtub 0.15 + toilet seat 0.1 → Bathroom 0.45; refrigerator 0.31 → Kitchen.
    const result = roomTags(probabilities({ 896: 0.2, 435: 0.15, 861: 0.1, 760: 0.31 }), 0.3);
    expect(result.tags).toEqual([
      { tag: 'Bathroom', confidence: 0.45 },
      { tag: 'Kitchen', confidence: 0.31 },
    ]);
    expect(result.image_of).toBe('Bathroom');
  });

  it('abstains below the threshold: Other and no tags, never the best guess (error)', () => {
    const result = roomTags(probabilities({ 831: 0.25, 564: 0.2, 1: 0.55 }), 0.3);
    expect(result).toEqual({ tags: [], image_of: ABSTAIN });
  });

  it('ignores classes that show no part of a property', () => {
    expect(roomTags(probabilities({ 1: 0.99 }), 0.3).image_of).toBe(ABSTAIN); // goldfish
  });

  it('can give no Pool: ImageNet has no swimming-pool class', () => {
    const values = new Set(Object.values(IMAGENET_TO_IMAGE_OF).map((entry) => entry.tag));
    expect(values.has('Pool')).toBe(false);
    expect([...values].sort()).toEqual([
      'Balcony',
      'Bathroom',
      'Bedroom',
      'DiningRoom',
      'FrontOfStructure',
      'Garden',
      'Kitchen',
      'Laundry',
      'LivingRoom',
      'Office',
      'Parking',
      'View',
    ]);
  });
});
