// What the heatmap says about a resolution-8 cell that depends on the cell alone: its hex id and
// its centre. h3-js computes them in ~1 µs per cell, 3–10 ms of a city box's 4,000 cells in every
// answer; a process remembers them instead. The cells with listings are a small set (Tanzania holds
// ~1.3 M resolution-8 cells, of which the market covers a few tens of thousands), so the memory is
// bounded by MAX_CELLS and starts afresh when it is full rather than tracking recency.
import { cellToLatLng, splitLongToH3Index } from 'h3-js';

export interface CellFact {
  /** The cell id in h3's hex form. */
  h3: string;
  /** The cell's centre, unrounded. */
  lat: number;
  lng: number;
}

export interface CellFacts {
  /** The facts of the cell whose UInt64 id is high · 2³² + low (the heatmap statement's halves). */
  of(high: number, low: number): CellFact;
  /** How many cells are remembered (for tests and metrics). */
  readonly size: number;
}

/** ~140 bytes per cell (measured): at most ~14 MB per process. */
export const MAX_CELLS = 100_000;

export function createCellFacts(maxCells = MAX_CELLS): CellFacts {
  // Keyed by the two halves: a UInt64 id is not exact as a number, and a string key would cost
  // what the memory saves. Cells of one area share a few high halves.
  let byHigh = new Map<number, Map<number, CellFact>>();
  let size = 0;
  return {
    of(high, low) {
      let byLow = byHigh.get(high);
      const known = byLow?.get(low);
      if (known) return known;
      if (size >= maxCells) {
        byHigh = new Map();
        size = 0;
        byLow = undefined;
      }
      if (!byLow) byHigh.set(high, (byLow = new Map()));
      const [lat, lng] = cellToLatLng([low, high]);
      const fact = { h3: splitLongToH3Index(low, high), lat, lng };
      byLow.set(low, fact);
      size++;
      return fact;
    },
    get size() {
      return size;
    },
  };
}
