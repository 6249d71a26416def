// Where a point's rent estimate searches from: the centre of the point's H3 cell, not the point.
// Every point of a cell gets the same search, so moving a probe inside a cell changes nothing in
// the answer (docs/analytics.md, "Rent estimates": what another account's comparables reveal).
import { cellToLatLng, latLngToCell } from 'h3-js';

/** The resolution of rent_comparables' h3_index (stream/enrich/h3.ts): cells of ~0.74 km². */
export const SEARCH_CELL_RESOLUTION = 8;

export interface SearchCentre {
  /** The cell as the decimal string of its 64-bit index (as ClickHouse's UInt64 h3_index). */
  h3Index: string;
  latitude: number;
  longitude: number;
}

export function searchCentre(latitude: number, longitude: number): SearchCentre {
  const cell = latLngToCell(latitude, longitude, SEARCH_CELL_RESOLUTION);
  const [lat, lng] = cellToLatLng(cell);
  return { h3Index: BigInt(`0x${cell}`).toString(), latitude: lat, longitude: lng };
}
