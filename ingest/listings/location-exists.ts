// The one place that decides whether a location_id exists: the static locations dataset
// (common/domain/locations.ts, also loaded into the ClickHouse `locations` table). Swap this
// function if locations ever become dynamic.
import { locationById } from '../../common/domain/locations.ts';

export function locationExists(id: string): boolean {
  return locationById(id) !== undefined;
}
