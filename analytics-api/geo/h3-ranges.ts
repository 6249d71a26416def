// Turns a bounding box into a few ranges of resolution-8 H3 indexes, so ClickHouse can read the box
// from cell_quarter_stats by its sort key (h3-js here, the library that assigned the cells, rather
// than the server's h3 functions, which cannot prune the primary key). All res-8 descendants of
// a cell share its base cell and leading digits, so they form one contiguous UInt64 range; we cover
// the box (plus a margin) with coarser parent cells and read their ranges. The caller keeps only the
// cells whose centre lies inside the box.
import {
  getHexagonAreaAvg,
  getHexagonEdgeLengthAvg,
  polygonToCellsExperimental,
  POLYGON_TO_CELLS_FLAGS,
} from 'h3-js';
import type { Bounds } from './bounds.ts';

export const GRID_RESOLUTION = 8;
/** Parent cells a covering may have: the query's ranges (≤ queries' MAX_RANGES) and h3-js's work. */
export const MAX_PARENTS = 48;
/**
 * Largest area the parents of a covering may span. A long, thin box needs coarse parents (a fine
 * covering of its length would be hundreds of cells), and coarse parents read far more than the box:
 * a 1,240 km × 1 km strip reads ~60,000 km² at resolution 4. Ten times the largest box still answers
 * such strips; a strip around half the globe would read millions of km² and is refused.
 */
export const MAX_COVER_AREA_KM2 = 100_000;
// A res-8 cell reaches ≈ 0.53 km from its centre; 0.01° (≈ 1.1 km) also covers the difference between
// the box's parallels and the great-circle edges H3 uses for polygons (edges are split every 1°).
const MARGIN_DEG = 0.01;
const MARGIN_KM = 1.2;
const EDGE_STEP_DEG = 1;
const KM_PER_DEG_LAT = 110.574;
const KM_PER_DEG_LNG_EQUATOR = 111.32;

export interface IndexRange {
  lo: bigint;
  hi: bigint;
}

export type CoveringPlan =
  | { ok: true; resolution: number; parents: number }
  | { ok: false; message: string; widthKm: number; heightKm: number };

/**
 * The parent resolution for a box, decided from its size alone, before any cell is computed: the
 * finest resolution whose covering needs at most MAX_PARENTS cells. The covering holds every cell
 * that overlaps the box grown by the margin, i.e. whose centre is within one edge length of it, so
 * it needs about (width + 2·edge)(height + 2·edge) / cell area cells — a box's length counts, not
 * only its area (a thin strip of small area crosses many cells). Refused when even that resolution
 * would read more than MAX_COVER_AREA_KM2.
 */
export function planCovering(b: Bounds): CoveringPlan {
  const rad = Math.PI / 180;
  // The widest parallel of the box: the one nearest the equator.
  const widestLat = b.south <= 0 && b.north >= 0 ? 0 : Math.min(Math.abs(b.south), Math.abs(b.north));
  const widthKm = (b.east - b.west) * KM_PER_DEG_LNG_EQUATOR * Math.cos(widestLat * rad);
  const heightKm = (b.north - b.south) * KM_PER_DEG_LAT;
  for (let res = GRID_RESOLUTION - 1; res >= 0; res--) {
    const grow = 2 * (getHexagonEdgeLengthAvg(res, 'km') + MARGIN_KM);
    const cellKm2 = getHexagonAreaAvg(res, 'km2');
    const parents = Math.ceil(((widthKm + grow) * (heightKm + grow)) / cellKm2);
    if (parents > MAX_PARENTS) continue;
    if (parents * cellKm2 > MAX_COVER_AREA_KM2) break;
    return { ok: true, resolution: res, parents };
  }
  return {
    ok: false,
    widthKm,
    heightKm,
    message:
      `bounds are too long and thin (${Math.round(widthKm)} km × ${heightKm.toFixed(1)} km): covering ` +
      `them would read more than ${MAX_COVER_AREA_KM2} km²; use a squarer box or split it into several`,
  };
}

/** The parent cells (all of one resolution) whose res-8 descendants contain every res-8 cell touching the box. */
export function parentsForBounds(b: Bounds): { resolution: number; parents: string[] } {
  const plan = planCovering(b);
  if (!plan.ok) throw new Error(plan.message); // params.ts refuses such boxes with a 400 first
  const south = Math.max(-90, b.south - MARGIN_DEG);
  const north = Math.min(90, b.north + MARGIN_DEG);
  const west = Math.max(-180, b.west - MARGIN_DEG);
  const east = Math.min(180, b.east + MARGIN_DEG);
  // Long edges are split so that H3's great-circle edges follow the parallels: a 11° edge at 7° S
  // bows 0.03° towards the pole, more than the margin.
  const steps = Math.max(1, Math.ceil((east - west) / EDGE_STEP_DEG));
  const southEdge = Array.from({ length: steps + 1 }, (_, i) => [south, west + ((east - west) * i) / steps]);
  const northEdge = southEdge.map(([, lng]) => [north, lng!]).reverse();
  const polygon = [...southEdge, ...northEdge];
  const parents = polygonToCellsExperimental(
    polygon,
    plan.resolution,
    POLYGON_TO_CELLS_FLAGS.containmentOverlapping,
  );
  return { resolution: plan.resolution, parents };
}

/** Contiguous [lo, hi] ranges of res-8 indexes that contain every res-8 cell touching the box. */
export function rangesForBounds(b: Bounds): IndexRange[] {
  return mergeRanges(parentsForBounds(b).parents.map((parent) => childRange(parent, GRID_RESOLUTION)));
}

/**
 * The parent at `resolution` of any valid res-8 index, as two masks: (index AND keep) OR fill.
 * An index's resolution sits in bits 52–55 and its digit d (1…15, 7 = unused) in the 3 bits at
 * (15 − d)·3; the parent keeps the digits up to its resolution and marks the rest unused. For a
 * valid res-8 index, its parent is one of a covering's parents exactly when it lies in that parent's
 * childRange (the range's ends share every bit above the parent's last digit).
 */
export function parentMasks(resolution: number): { keep: bigint; fill: bigint } {
  const unusedDigits = (1n << BigInt((15 - resolution) * 3)) - 1n; // digits resolution+1 … 15 = 7
  const resolutionBits = 0xfn << 52n;
  return {
    keep: (2n ** 64n - 1n) & ~resolutionBits & ~unusedDigits,
    fill: (BigInt(resolution) << 52n) | unusedDigits,
  };
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
