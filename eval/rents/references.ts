// The simple references the estimate is compared with on real rents, each from the listings before
// the evaluated month only: the type's median over the last 90 days, and the plain median of the 15
// nearest listings of the type with bedrooms ±1 (listed within a year, no adjustment, no weights).
import { median } from '../../common/estimate/accuracy.ts';
import { distanceKm, SECONDS_PER_DAY } from '../../common/estimate/method.ts';
import type { RentRow } from './shape.ts';

/** The type's median asking rent over the 90 days before `origin`; NaN with fewer than 5. */
export function typeMedian(train: RentRow[], subject: RentRow, origin: number): number {
  const from = origin - 90 * SECONDS_PER_DAY;
  const rents = train.filter((r) => r.type === subject.type && r.listedAt >= from).map((r) => r.rent);
  return rents.length >= 5 ? median(rents)! : NaN;
}

/** The median of the 15 nearest of the type with bedrooms ±1 listed within 365 days; NaN with fewer than 5. */
export function nearestMedian(train: RentRow[], subject: RentRow, origin: number): number {
  const from = origin - 365 * SECONDS_PER_DAY;
  const near = train
    .filter(
      (r) =>
        r.type === subject.type &&
        r.listedAt >= from &&
        (subject.bedrooms === null || (r.bedrooms !== null && Math.abs(r.bedrooms - subject.bedrooms) <= 1)),
    )
    .map((r) => ({
      rent: r.rent,
      km: distanceKm(subject.latitude, subject.longitude, r.latitude, r.longitude),
    }))
    .sort((a, b) => a.km - b.km)
    .slice(0, 15);
  return near.length >= 5 ? median(near.map((n) => n.rent))! : NaN;
}
