// The backtest's search for the nearest similar listings, in memory: what the endpoint asks
// ClickHouse for one point (analytics-api/queries/estimate.ts), answered here for millions of
// points. Rows are grouped by bedrooms (the similarity filter allows ±1) and bucketed on two
// lat/lng grids, each bucket sorted by listed_at so an age window is a binary search. A search
// scans fine buckets ring by ring (~280 m) and stops as soon as nothing outside can be nearer than
// the K-th found; beyond 8 rings it continues on the coarse grid (~2.8 km) up to the radius.
import type { ComparableColumns } from './backtest-data.ts';
import {
  AREA_RATIO_LIMIT,
  BEDROOM_TOLERANCE,
  SECONDS_PER_DAY,
  type Candidate,
} from '../../common/estimate/method.ts';

/** Km per degree of latitude on the sphere of method.distanceKm. */
const KM_PER_DEG = (12_742 * Math.PI) / 360;
const FINE_DEG = 0.0025;
const COARSE_DEG = 0.025;
const FINE_RINGS = 8;
/** Lower bounds are shrunk by this, for the sphere against the flat grid (far less at 10 km). */
const BOUND_SLACK = 0.99;

const bucketKey = (i: number, j: number) => (i + 50_000) * 200_000 + (j + 100_000);
/** Rows per group a packed (bucket, row) number can hold below 2^53 with 2^29 buckets. */
const ROW_LIMIT = 2 ** 24;

class BucketGrid {
  private readonly order: Int32Array;
  private readonly times: Uint32Array;
  /** Bucket b holds order[starts[b]] … order[starts[b + 1] - 1]. */
  private readonly starts: Int32Array;
  private readonly buckets = new Map<number, number>();

  constructor(
    readonly cols: ComparableColumns,
    rows: Int32Array,
    readonly deg: number,
  ) {
    // Buckets numbered as first seen; rows sorted by (bucket, row) as one packed number each, with
    // the native numeric sort (a comparator sort of millions of rows blocked the event loop for
    // seconds). Rows are in listed_at order, so each bucket ends up sorted by time.
    if (cols.length >= ROW_LIMIT) throw new Error(`backtest: more than ${ROW_LIMIT} listings in one group`);
    const ids = new Map<number, number>();
    const packed = new Float64Array(rows.length);
    for (let k = 0; k < rows.length; k++) {
      const r = rows[k]!;
      const key = bucketKey(Math.floor(cols.latitude[r]! / deg), Math.floor(cols.longitude[r]! / deg));
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      packed[k] = id * ROW_LIMIT + r;
    }
    packed.sort();
    this.order = new Int32Array(rows.length);
    this.times = new Uint32Array(rows.length);
    this.starts = new Int32Array(ids.size + 1);
    let bucket = -1;
    for (let k = 0; k < packed.length; k++) {
      const id = Math.floor(packed[k]! / ROW_LIMIT);
      const row = packed[k]! - id * ROW_LIMIT;
      this.order[k] = row;
      this.times[k] = cols.listedAt[row]!;
      while (bucket < id) this.starts[++bucket] = k;
    }
    this.starts[ids.size] = packed.length;
    for (const [key, id] of ids) this.buckets.set(key, id);
  }

  /** Rows of bucket (i, j) listed in [from, to), as positions in `order`. */
  scan(i: number, j: number, from: number, to: number, visit: (row: number) => void): void {
    const b = this.buckets.get(bucketKey(i, j));
    if (b === undefined) return;
    const end = this.starts[b + 1]!;
    for (let k = lowerBound(this.times, from, this.starts[b]!, end); k < end && this.times[k]! < to; k++) {
      visit(this.order[k]!);
    }
  }
}

function lowerBound(values: Uint32Array, value: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface NearestQuery {
  latitude: number;
  longitude: number;
  bedrooms: number | null;
  areaSqm: number | null;
  /** Listed in [from, to), epoch seconds. */
  from: number;
  to: number;
  /** Reference time of the ages (epoch seconds). */
  reference: number;
  /** Rows with this fingerprint are left out (the subject's own). */
  excludeHi: number;
  excludeLo: number;
  limit: number;
  maxKm: number;
}

export class NearestIndex {
  private readonly byBedrooms = new Map<number, { fine: BucketGrid; coarse: BucketGrid }>();

  constructor(private readonly cols: ComparableColumns) {
    const groups = new Map<number, number[]>();
    for (let r = 0; r < cols.length; r++) {
      const b = cols.bedrooms[r]!;
      let list = groups.get(b);
      if (!list) groups.set(b, (list = []));
      list.push(r);
    }
    for (const [b, list] of groups) {
      const rows = Int32Array.from(list);
      this.byBedrooms.set(b, {
        fine: new BucketGrid(cols, rows, FINE_DEG),
        coarse: new BucketGrid(cols, rows, COARSE_DEG),
      });
    }
  }

  /** The `limit` nearest similar rows within maxKm, sorted as method.compareCandidates sorts. */
  nearest(q: NearestQuery): Candidate[] {
    const c = this.cols;
    const grids =
      q.bedrooms === null
        ? [...this.byBedrooms.values()]
        : [...this.byBedrooms.entries()]
            .filter(([b]) => b >= 0 && Math.abs(b - q.bedrooms!) <= BEDROOM_TOLERANCE)
            .map(([, g]) => g);
    const rad = Math.PI / 180;
    const cosLat = Math.cos(q.latitude * rad);
    // The narrowest longitude degree within 10 km of the point (the grid's lower bounds use it).
    const cosBound = Math.cos((Math.abs(q.latitude) + 0.2) * rad);
    const areaLo = q.areaSqm === null ? -Infinity : q.areaSqm / AREA_RATIO_LIMIT;
    const areaHi = q.areaSqm === null ? Infinity : q.areaSqm * AREA_RATIO_LIMIT;

    const bestRow = new Int32Array(q.limit);
    const bestDist = new Float64Array(q.limit);
    let found = 0;
    const before = (r: number, d: number, s: number, ds: number) =>
      d < ds ||
      (d === ds &&
        (c.listedAt[r]! > c.listedAt[s]! ||
          (c.listedAt[r] === c.listedAt[s] &&
            (c.tieHi[r]! < c.tieHi[s]! || (c.tieHi[r] === c.tieHi[s] && c.tieLo[r]! < c.tieLo[s]!)))));
    const consider = (r: number) => {
      const area = c.areaSqm[r]!;
      if (area === area && (area < areaLo || area > areaHi)) return; // NaN (unknown) passes
      if (c.fingerprintHi[r] === q.excludeHi && c.fingerprintLo[r] === q.excludeLo) return;
      // The meridian arc is a lower bound of the distance: most rows end here, without trigonometry.
      const dLat = Math.abs(c.latitude[r]! - q.latitude) * KM_PER_DEG * (1 - 1e-9);
      if (dLat > q.maxKm || (found === q.limit && dLat > bestDist[found - 1]!)) return;
      const a =
        Math.sin(((c.latitude[r]! - q.latitude) * rad) / 2) ** 2 +
        cosLat * Math.cos(c.latitude[r]! * rad) * Math.sin(((c.longitude[r]! - q.longitude) * rad) / 2) ** 2;
      const d = 12_742 * Math.asin(Math.sqrt(a));
      if (d > q.maxKm) return;
      if (found === q.limit && !before(r, d, bestRow[found - 1]!, bestDist[found - 1]!)) return;
      let k = found < q.limit ? found++ : found - 1;
      while (k > 0 && before(r, d, bestRow[k - 1]!, bestDist[k - 1]!)) {
        bestRow[k] = bestRow[k - 1]!;
        bestDist[k] = bestDist[k - 1]!;
        k--;
      }
      bestRow[k] = r;
      bestDist[k] = d;
    };
    // Km from the point to anything outside the square of `ring - 1` buckets around its own.
    const outside = (deg: number, i0: number, j0: number, ring: number) => {
      if (ring === 0) return 0;
      const latGap = Math.min(q.latitude - (i0 - ring + 1) * deg, (i0 + ring) * deg - q.latitude);
      const lngGap = Math.min(q.longitude - (j0 - ring + 1) * deg, (j0 + ring) * deg - q.longitude);
      return Math.min(latGap * KM_PER_DEG, lngGap * KM_PER_DEG * cosBound) * BOUND_SLACK;
    };
    const done = (bound: number) => bound > q.maxKm || (found === q.limit && bestDist[found - 1]! < bound);

    const fi = Math.floor(q.latitude / FINE_DEG);
    const fj = Math.floor(q.longitude / FINE_DEG);
    let finished = false;
    for (let ring = 0; ring <= FINE_RINGS && !finished; ring++) {
      if (done(outside(FINE_DEG, fi, fj, ring))) finished = true;
      else
        forRing(ring, (di, dj) =>
          grids.forEach((g) => g.fine.scan(fi + di, fj + dj, q.from, q.to, consider)),
        );
    }
    if (!finished) {
      // The fine square is scanned: skip its rows on the coarse grid.
      const outsideFine = (r: number) =>
        Math.abs(Math.floor(c.latitude[r]! / FINE_DEG) - fi) > FINE_RINGS ||
        Math.abs(Math.floor(c.longitude[r]! / FINE_DEG) - fj) > FINE_RINGS;
      const coarse = (r: number) => {
        if (outsideFine(r)) consider(r);
      };
      const ci = Math.floor(q.latitude / COARSE_DEG);
      const cj = Math.floor(q.longitude / COARSE_DEG);
      for (let ring = 0; !done(outside(COARSE_DEG, ci, cj, ring)); ring++) {
        forRing(ring, (di, dj) =>
          grids.forEach((g) => g.coarse.scan(ci + di, cj + dj, q.from, q.to, coarse)),
        );
      }
    }
    const out: Candidate[] = [];
    for (let k = 0; k < found; k++) {
      const r = bestRow[k]!;
      out.push({
        listingId: '',
        listedAt: c.listedAt[r]!,
        distanceKm: bestDist[k]!,
        ageDays: (q.reference - c.listedAt[r]!) / SECONDS_PER_DAY,
        bedrooms: c.bedrooms[r]! < 0 ? null : c.bedrooms[r]!,
        bathrooms: c.bathrooms[r]! < 0 ? null : c.bathrooms[r]!,
        areaSqm: Number.isNaN(c.areaSqm[r]!) ? null : c.areaSqm[r]!,
        priceTzs: c.priceTzs[r]!,
        tieHi: c.tieHi[r]!,
        tieLo: c.tieLo[r]!,
      });
    }
    return out;
  }
}

/** Calls visit for every bucket offset at Chebyshev distance `ring`. */
function forRing(ring: number, visit: (di: number, dj: number) => void): void {
  if (ring === 0) return visit(0, 0);
  for (let d = -ring; d <= ring; d++) {
    visit(-ring, d);
    visit(ring, d);
  }
  for (let d = -ring + 1; d <= ring - 1; d++) {
    visit(d, -ring);
    visit(d, ring);
  }
}
