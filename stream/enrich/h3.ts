import { latLngToCell } from 'h3-js';

/** H3 resolution 8: cells of ~0.74 km² (~460 m edge), the "500 m grid" of spec §2.5. */
export const H3_RESOLUTION = 8;

/** The cell of a coordinate as the decimal string of its 64-bit index (ClickHouse UInt64). */
export function h3Cell(latitude: number, longitude: number): string {
  return BigInt(`0x${latLngToCell(latitude, longitude, H3_RESOLUTION)}`).toString();
}
