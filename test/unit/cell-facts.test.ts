// The heatmap's memory of cell ids and centres answers what h3-js answers, and stays bounded.
import { cellToLatLng, gridDisk, h3IndexToSplitLong, latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { createCellFacts } from '../../analytics-api/geo/cell-facts.ts';

// Cells around Dar es Salaam, Arusha and Mwanza: several high halves.
const cells = [
  [-6.8, 39.28],
  [-3.37, 36.68],
  [-2.52, 32.9],
].flatMap(([lat, lng]) => gridDisk(latLngToCell(lat!, lng!, 8), 6));

describe('cell facts', () => {
  it('happy: gives each cell the hex id and centre h3-js gives, first asked and remembered', () => {
    const facts = createCellFacts();
    for (let pass = 0; pass < 2; pass++) {
      for (const cell of cells) {
        const [low, high] = h3IndexToSplitLong(cell);
        const [lat, lng] = cellToLatLng(cell);
        expect(facts.of(high, low)).toEqual({ h3: cell, lat, lng });
      }
    }
    expect(facts.size).toBe(cells.length);
  });

  it('bounded: starts afresh when full, and still answers correctly', () => {
    const facts = createCellFacts(10);
    for (const cell of cells.slice(0, 25)) {
      const [low, high] = h3IndexToSplitLong(cell);
      expect(facts.of(high, low).h3).toBe(cell);
      expect(facts.size).toBeLessThanOrEqual(10);
    }
    expect(facts.size).toBe(5); // 25 cells: full at 10 and 20, then 5 more
  });
});
