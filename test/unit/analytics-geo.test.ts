// Bounding box → H3 index ranges (analytics-api/geo): the ranges must contain every resolution-8
// cell of the box, and a parent's range exactly its descendants' span.
import { cellToChildren, latLngToCell, polygonToCells } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { boundsAreaKm2, MAX_BOUNDS_AREA_KM2, parseBounds } from '../../analytics-api/geo/bounds.ts';
import { childRange, mergeRanges, rangesForBounds } from '../../analytics-api/geo/h3-ranges.ts';

const inRanges = (h3: string, ranges: { lo: bigint; hi: bigint }[]) => {
  const value = BigInt(`0x${h3}`);
  return ranges.some((r) => value >= r.lo && value <= r.hi);
};

describe('H3 ranges', () => {
  it('spans exactly the resolution-8 children of a parent (happy)', () => {
    for (const res of [4, 5, 6, 7]) {
      const parent = latLngToCell(-6.8, 39.28, res);
      const range = childRange(parent, 8);
      const children = cellToChildren(parent, 8).map((h) => BigInt(`0x${h}`));
      expect(children.every((c) => c >= range.lo && c <= range.hi)).toBe(true);
      expect(children).toContain(range.lo);
      expect(children).toContain(range.hi);
    }
  });

  it('covers every cell of boxes from a street to the maximum area (happy)', () => {
    for (const box of [
      { west: 39.27, south: -6.78, east: 39.28, north: -6.77 },
      { west: 39.0, south: -7.1, east: 39.6, north: -6.6 },
      { west: 35.2, south: -6.6, east: 36.1, north: -5.7 },
    ]) {
      const area = boundsAreaKm2(box);
      expect(area).toBeLessThanOrEqual(MAX_BOUNDS_AREA_KM2);
      const ranges = rangesForBounds(box, area);
      expect(ranges.length).toBeLessThanOrEqual(200);
      const polygon = [
        [box.south, box.west],
        [box.south, box.east],
        [box.north, box.east],
        [box.north, box.west],
      ];
      const cells = polygonToCells(polygon, 8);
      expect(cells.length).toBeGreaterThan(0);
      expect(cells.filter((c) => !inRanges(c, ranges))).toEqual([]);
    }
  });

  it('merges overlapping and touching ranges (happy)', () => {
    expect(
      mergeRanges([
        { lo: 5n, hi: 9n },
        { lo: 1n, hi: 4n },
        { lo: 20n, hi: 30n },
        { lo: 8n, hi: 12n },
      ]),
    ).toEqual([
      { lo: 1n, hi: 12n },
      { lo: 20n, hi: 30n },
    ]);
  });
});

describe('bounds', () => {
  it('computes spherical box areas (happy)', () => {
    // 1° × 1° at the equator ≈ 12,364 km².
    expect(Math.round(boundsAreaKm2({ west: 0, south: -0.5, east: 1, north: 0.5 }))).toBe(12364);
    const parsed = parseBounds(' 39.2 , -6.9,39.3,-6.7');
    expect(parsed.ok).toBe(true);
  });
});
