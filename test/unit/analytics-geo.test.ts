// Bounding box → H3 index ranges (analytics-api/geo): the ranges must contain every resolution-8
// cell of the box, and a parent's range exactly its descendants' span.
import { cellToChildren, cellToParent, latLngToCell, polygonToCells } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { boundsAreaKm2, MAX_BOUNDS_AREA_KM2, parseBounds } from '../../analytics-api/geo/bounds.ts';
import {
  childRange,
  mergeRanges,
  parentMasks,
  planCovering,
  rangesForBounds,
} from '../../analytics-api/geo/h3-ranges.ts';
import { parseHeatmapParams } from '../../analytics-api/params.ts';

const inRanges = (h3: string, ranges: { lo: bigint; hi: bigint }[]) => {
  const value = BigInt(`0x${h3}`);
  return ranges.some((r) => value >= r.lo && value <= r.hi);
};

describe('H3 ranges', () => {
  it('happy: spans exactly the resolution-8 children of a parent', () => {
    for (const res of [4, 5, 6, 7]) {
      const parent = latLngToCell(-6.8, 39.28, res);
      const range = childRange(parent, 8);
      const children = cellToChildren(parent, 8).map((h) => BigInt(`0x${h}`));
      expect(children.every((c) => c >= range.lo && c <= range.hi)).toBe(true);
      expect(children).toContain(range.lo);
      expect(children).toContain(range.hi);
    }
  });

  it('happy: finds the parent of resolution-8 cells with its masks, as h3-js does', () => {
    for (let i = 0; i < 2_000; i++) {
      const cell = latLngToCell(-90 + 180 * Math.random(), -180 + 360 * Math.random(), 8);
      for (let res = 0; res < 8; res++) {
        const { keep, fill } = parentMasks(res);
        const parent = cellToParent(cell, res);
        expect((BigInt(`0x${cell}`) & keep) | fill).toBe(BigInt(`0x${parent}`));
        const range = childRange(parent, 8);
        expect(BigInt(`0x${cell}`) >= range.lo && BigInt(`0x${cell}`) <= range.hi).toBe(true);
      }
    }
  });

  it('happy: covers every cell of boxes from a street to the maximum area', () => {
    for (const box of [
      { west: 39.27, south: -6.78, east: 39.28, north: -6.77 },
      { west: 39.0, south: -7.1, east: 39.6, north: -6.6 },
      { west: 35.2, south: -6.6, east: 36.1, north: -5.7 },
    ]) {
      const area = boundsAreaKm2(box);
      expect(area).toBeLessThanOrEqual(MAX_BOUNDS_AREA_KM2);
      const ranges = rangesForBounds(box);
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

  it('happy: covers thin, long boxes under the area cap with a few ranges', () => {
    for (const box of [
      { west: 29.3, south: -6.8, east: 40.5, north: -6.79 }, // 1,240 km × 1.1 km
      { west: 29.3, south: -6.8, east: 40.5, north: -6.7999 }, // 1,240 km × 11 m
      { west: 39.0, south: -11.0, east: 39.0001, north: -1.0 }, // 11 m × 1,100 km
      { west: 29.5, south: -6.83, east: 40.3, north: -6.8 }, // wide: the edges must follow the parallels
    ]) {
      const plan = planCovering(box);
      expect(plan.ok).toBe(true);
      const ranges = rangesForBounds(box);
      expect(ranges.length).toBeLessThanOrEqual(48);
      // Every res-8 cell under a fine grid of points inside the box lies in a range.
      const missed = new Set<string>();
      for (let lat = box.south; lat <= box.north; lat += Math.min(0.002, (box.north - box.south) / 2)) {
        for (let lng = box.west; lng <= box.east; lng += Math.min(0.002, (box.east - box.west) / 2)) {
          const cell = latLngToCell(lat, lng, 8);
          if (!inRanges(cell, ranges)) missed.add(cell);
        }
      }
      expect([...missed]).toEqual([]);
    }
  });

  it('error: refuses, before computing any cell, a box whose covering would read far more than the box', () => {
    const box = { west: -179, south: -0.001, east: 179, north: 0.001 }; // 39,800 km × 0.2 km
    expect(boundsAreaKm2(box)).toBeLessThan(MAX_BOUNDS_AREA_KM2);
    const plan = planCovering(box);
    expect(plan.ok).toBe(false);
    if (!plan.ok) expect(plan.message).toMatch(/long and thin/);
    expect(() => parseHeatmapParams({ bounds: '-179,-0.001,179,0.001' })).toThrow(
      expect.objectContaining({ code: 'invalid_parameter', status: 400 }),
    );
  });

  it('happy: merges overlapping and touching ranges', () => {
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
  it('happy: computes spherical box areas', () => {
    // 1° × 1° at the equator ≈ 12,364 km².
    expect(Math.round(boundsAreaKm2({ west: 0, south: -0.5, east: 1, north: 0.5 }))).toBe(12364);
    const parsed = parseBounds(' 39.2 , -6.9,39.3,-6.7');
    expect(parsed.ok).toBe(true);
  });
});
