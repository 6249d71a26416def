// The resolution-8 H3 cells that hold every point within a radius of a point: the cells the
// estimate's comparables query reads (rent_comparables is sorted by cell). A point within r of the
// centre point lies in a cell whose centre is within r + the cell's reach (centre to farthest
// vertex) of it; every such cell is in a grid disk of k rings, since a point lies within one edge
// of its own cell's centre and each ring moves the centres at least 1.5 shortest edges further out.
// The disk is then cut to those cells: a circle needs about a third of its disk's cells.
// Resolution-8 reach is at most 0.585 km and edges at least 0.535 km in Tanzania (h3-js); the
// bounds below leave room for the rest of the globe (test/unit/estimate-search.test.ts checks
// random points up to the radius).
import { cellToLatLng, gridDisk, latLngToCell } from 'h3-js';
import { distanceKm } from '../../common/estimate/method.ts';

const CELL_REACH_KM = 0.65;
const SHORTEST_EDGE_KM = 0.45;

export function diskRings(radiusKm: number): number {
  return Math.ceil((radiusKm + 2 * CELL_REACH_KM) / (1.5 * SHORTEST_EDGE_KM));
}

export function diskCells(latitude: number, longitude: number, radiusKm: number): bigint[] {
  const cells: bigint[] = [];
  for (const h3 of gridDisk(latLngToCell(latitude, longitude, 8), diskRings(radiusKm))) {
    const [lat, lng] = cellToLatLng(h3);
    if (distanceKm(latitude, longitude, lat, lng) <= radiusKm + CELL_REACH_KM) cells.push(BigInt(`0x${h3}`));
  }
  return cells;
}
