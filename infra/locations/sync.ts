// Loads infra/locations/locations.json into the ClickHouse `locations` table (migration 0005).
// Idempotent: inserts only when the stored rows of the dataset's version are incomplete, so every
// start may call it; a newer dataset version replaces rows per id (ReplacingMergeTree(version)).
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { allLocations, LOCATIONS_VERSION } from '../../common/domain/locations.ts';

export async function syncLocations(client: ClickHouseClient): Promise<number> {
  const [stored] = await queryRows<{ c: string }>(
    client,
    'SELECT uniqExact(id) AS c FROM locations WHERE version = {version:UInt32}',
    { version: LOCATIONS_VERSION },
  );
  if (Number(stored?.c ?? 0) >= allLocations.length) return 0;
  await client.insert({
    table: 'locations',
    format: 'JSONEachRow',
    values: allLocations.map((l) => ({
      id: l.id,
      kind: l.kind,
      city: l.city,
      slug: l.slug,
      name: l.name,
      latitude: l.latitude,
      longitude: l.longitude,
      radius_km: l.radius_km,
      version: LOCATIONS_VERSION,
    })),
  });
  return allLocations.length;
}
