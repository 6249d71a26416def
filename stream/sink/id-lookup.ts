// Primary-key lookups by many UUIDs. ClickHouse caps the query text (max_query_size, 256 KiB by
// default), so an IN list of a 10,000-row batch must be split: chunks of 2,000 ids (~90 KB).
import type { ClickHouseClient } from '@clickhouse/client';
import { queryRows, sqlString } from '../../common/clients/clickhouse.ts';

export const IN_CHUNK = 2_000;

/** Runs `select(inList)` for chunks of `ids` (validated UUIDs) and concatenates the rows. */
export async function queryByIds<T>(
  clickhouse: ClickHouseClient,
  ids: string[],
  select: (inList: string) => string,
): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += IN_CHUNK) {
    const list = ids
      .slice(i, i + IN_CHUNK)
      .map((id) => `toUUID(${sqlString(id)})`)
      .join(',');
    out.push(...(await queryRows<T>(clickhouse, select(list))));
  }
  return out;
}
