// Turns a bounding box into a few ranges of resolution-8 H3 indexes, so ClickHouse can read the box
// from cell_quarter_stats by its sort key (h3-js here, the library that assigned the cells, rather
// than the server's h3 functions, which cannot prune the primary key). All res-8 descendants of
// a cell share its base cell and leading digits, so they form one contiguous UInt64 range; we cover
// the box (plus a margin) with coarser parent cells and read their ranges. The caller keeps only the
// cells whose centre lies inside the box.
import { getHexagonAreaAvg, polygonToCellsExperimental, POLYGON_TO_CELLS_FLAGS } from 'h3-js';
import type { Bounds } from './bounds.ts';

export const GRID_RESOLUTION = 8;
const MAX_PARENTS = 48;
// A res-8 cell reaches ≈ 0.53 km from its centre; 0.01° (≈ 1.1 km) also covers the difference between
// the box's parallels and the great-circle edges H3 uses for polygons.
const MARGIN_DEG = 0.01;

export interface IndexRange {
  lo: bigint;
  hi: bigint;
}

/** The finest parent resolution whose covering of the box stays around MAX_PARENTS cells. */
export function parentResolution(areaKm2: number): number {
  for (let res = GRID_RESOLUTION - 1; res > 0; res--) {
    if (areaKm2 / getHexagonAreaAvg(res, 'km2') <= MAX_PARENTS / 3) return res;
  }
  return 0;
}

/** Contiguous [lo, hi] ranges of res-8 indexes that contain every res-8 cell touching the box. */
export function rangesForBounds(b: Bounds, areaKm2: number): IndexRange[] {
  const res = parentResolution(areaKm2);
  const south = Math.max(-90, b.south - MARGIN_DEG);
  const north = Math.min(90, b.north + MARGIN_DEG);
  const west = Math.max(-180, b.west - MARGIN_DEG);
  const east = Math.min(180, b.east + MARGIN_DEG);
  const polygon = [
    [south, west],
    [south, east],
    [north, east],
    [north, west],
  ];
  const parents = polygonToCellsExperimental(polygon, res, POLYGON_TO_CELLS_FLAGS.containmentOverlapping);
  return mergeRanges(parents.map((parent) => childRange(parent, GRID_RESOLUTION)));
}

/** All descendants of `parent` at `childRes`: digits below the parent's run 0…6 (7 = unused). */
export function childRange(parent: string, childRes: number): IndexRange {
  const index = BigInt(`0x${parent}`);
  const parentRes = Number((index >> 52n) & 0xfn);
  let lo = (index & ~(0xfn << 52n)) | (BigInt(childRes) << 52n);
  let hi = lo;
  for (let digit = parentRes + 1; digit <= childRes; digit++) {
    const shift = BigInt((15 - digit) * 3);
    lo &= ~(7n << shift); // digit 0
    hi = (hi & ~(7n << shift)) | (6n << shift); // digit 6
  }
  return { lo, hi };
}

export function mergeRanges(ranges: IndexRange[]): IndexRange[] {
  const sorted = [...ranges].sort((a, b) => (a.lo < b.lo ? -1 : a.lo > b.lo ? 1 : 0));
  const merged: IndexRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.lo <= last.hi + 1n) {
      if (range.hi > last.hi) last.hi = range.hi;
    } else {
      merged.push({ ...range });
    }
  }
  return merged;
}
