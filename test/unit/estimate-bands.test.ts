// The estimate's search centre (common/estimate/search-centre.ts) and the distance bands of other accounts'
// comparables (services/distance-bands.ts): pure functions, no services.
import { cellToBoundary, cellToLatLng, latLngToCell } from 'h3-js';
import { describe, expect, it } from 'vitest';
import { SEARCH_CELL_RESOLUTION, searchCentre } from '../../common/estimate/search-centre.ts';
import {
  DISTANCE_BAND_LABELS,
  distanceBand,
  shownDistance,
} from '../../analytics-api/services/distance-bands.ts';
import { RADII_KM } from '../../common/estimate/method.ts';
import { H3_RESOLUTION } from '../../stream/enrich/h3.ts';

describe('estimate search centre', () => {
  it('security: is the cell of rent_comparables’ resolution, the same for every point of the cell', () => {
    expect(SEARCH_CELL_RESOLUTION).toBe(H3_RESOLUTION);
    for (let i = 0; i < 200; i++) {
      const lat = -11 + Math.random() * 10;
      const lng = 29.5 + Math.random() * 11;
      const cell = latLngToCell(lat, lng, H3_RESOLUTION);
      const [clat, clng] = cellToLatLng(cell);
      const centre = searchCentre(lat, lng);
      expect(centre).toEqual({ h3Index: BigInt(`0x${cell}`).toString(), latitude: clat, longitude: clng });
      // Points just inside the cell's corners: the same centre.
      for (const [vlat, vlng] of cellToBoundary(cell)) {
        const inside = searchCentre(vlat + (clat - vlat) * 0.01, vlng + (clng - vlng) * 0.01);
        expect(inside).toEqual(centre);
      }
    }
  });
});

describe('estimate distance bands', () => {
  it('are the search radii, upper bound inclusive', () => {
    expect(DISTANCE_BAND_LABELS).toEqual(
      RADII_KM.map((upper, i) => `${i === 0 ? 0 : RADII_KM[i - 1]}-${upper} km`),
    );
    const cases: [number, string, number][] = [
      [0, '0-1 km', 1],
      [0.2501, '0-1 km', 1],
      [1, '0-1 km', 1],
      [1.0001, '1-2 km', 2],
      [2, '1-2 km', 2],
      [4.99, '2-5 km', 5],
      [5.01, '5-10 km', 10],
      [10, '5-10 km', 10],
      [12, '5-10 km', 10],
    ];
    for (const [km, label, upperKm] of cases)
      expect(distanceBand(km), String(km)).toEqual({ label, upperKm });
  });

  it("security: shows other accounts' comparables as the band only, the caller's own to 10 m", () => {
    // Distances either side of the old 0.5 km rounding's edge (0.25 km) read the same.
    expect(shownDistance(0.2499, false)).toEqual({ distance_km: 1, distance_band: '0-1 km' });
    expect(shownDistance(0.2501, false)).toEqual({ distance_km: 1, distance_band: '0-1 km' });
    expect(shownDistance(0.2501, true)).toEqual({ distance_km: 0.25, distance_band: '0-1 km' });
    expect(shownDistance(1.234, true)).toEqual({ distance_km: 1.23, distance_band: '1-2 km' });
  });
});
