// How far a comparable is, as the estimate answer says it. Another account's listing is given as a
// band of its distance from the search centre, never the distance itself: the bands are the
// method's own search radii (1, 2, 5, 10 km), so a band says no more than which widening step the
// listing fell in, which whether it is a comparable at all says already. The caller's own
// listings keep their distance (to 10 m). docs/analytics.md, "Rent estimates".
import { RADII_KM } from '../../common/estimate/method.ts';

/** One label per search radius, in order (test/unit/estimate-bands.test.ts checks they agree). */
export const DISTANCE_BAND_LABELS = ['0-1 km', '1-2 km', '2-5 km', '5-10 km'] as const;
export type DistanceBandLabel = (typeof DISTANCE_BAND_LABELS)[number];

export interface DistanceBand {
  label: DistanceBandLabel;
  /** The band's upper bound: the `distance_km` shown for other accounts' comparables. */
  upperKm: number;
}

/** The band holding `km` (upper bounds inclusive, as the search's `distance ≤ radius`). */
export function distanceBand(km: number): DistanceBand {
  // Beyond the widest search (never a comparable): the widest band, not an exact figure.
  const index = RADII_KM.findIndex((upper) => km <= upper);
  const i = index === -1 ? RADII_KM.length - 1 : index;
  return { label: DISTANCE_BAND_LABELS[i]!, upperKm: RADII_KM[i]! };
}

/** How a comparable's distance is shown: its own account sees it to 10 m, others only its band. */
export function shownDistance(
  km: number,
  own: boolean,
): { distance_km: number; distance_band: DistanceBandLabel } {
  const band = distanceBand(km);
  return { distance_km: own ? Math.round(km * 100) / 100 : band.upperKm, distance_band: band.label };
}
