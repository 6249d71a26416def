// The resolution-8 H3 cells that hold every point within a radius of a point: the cells the
// estimate's comparables query reads (rent_comparables is sorted by cell). A point lies within one
// edge of its cell's centre, and each ring of a grid disk moves the centres at least 1.5 edges
// further out, so k = ⌈(r + 2 · longest edge) / (1.5 · shortest edge)⌉ rings cover the circle.
// Resolution-8 edges measure 0.535–0.585 km in Tanzania (h3-js edgeLength); the bounds below leave
// room for the rest of the globe (test/unit/estimate-geo.test.ts checks random points).
import { gridDisk, latLngToCell } from 'h3-js';

const LONGEST_EDGE_KM = 0.6;
const SHORTEST_EDGE_KM = 0.45;

export function diskRings(radiusKm: number): number {
  return Math.ceil((radiusKm + 2 * LONGEST_EDGE_KM) / (1.5 * SHORTEST_EDGE_KM));
}

export function diskCells(latitude: number, longitude: number, radiusKm: number): bigint[] {
  return gridDisk(latLngToCell(latitude, longitude, 8), diskRings(radiusKm)).map((h3) => BigInt(`0x${h3}`));
}
