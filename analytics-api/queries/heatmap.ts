// SQL of the heatmap endpoint (spec §2.5): listings, price sums and views per resolution-8 cell from
// the cell_quarter_stats aggregate (migration 0011), read as a few h3_index ranges of its sort key.
// A city box returns thousands of rows, so they come compact (arrays, unquoted counts) and the
// UInt64 cell id as two UInt32 halves: h3-js takes [low, high] directly, with no BigInt or hex
// parsing per cell.
import { z } from 'zod';
import { sqlString } from '../../common/clients/clickhouse.ts';
import { propertyTypes } from '../../common/domain/listing.ts';
import { count, defineQuery, sqlSafe } from './define.ts';

export const MAX_RANGES = 200;

const uint32 = z
  .number()
  .int()
  .min(0)
  .max(2 ** 32 - 1);

export const cellStats = defineQuery({
  name: 'heatmap.cell_stats',
  compact: true,
  params: z.object({
    isTest: sqlSafe.flag,
    quarterStart: sqlSafe.date,
    type: z.enum(propertyTypes).optional(),
    ranges: z
      .array(z.object({ lo: sqlSafe.uint64, hi: sqlSafe.uint64 }))
      .min(1)
      .max(MAX_RANGES),
  }),
  /** [cell id high 32 bits, low 32 bits, listings, price_tzs_sum, views] */
  row: z.tuple([uint32, uint32, count, z.number(), count]),
  sql: (p) => `
    SELECT
      toUInt32(intDiv(h3_index, 4294967296)) AS cell_high,
      toUInt32(h3_index % 4294967296) AS cell_low,
      sum(listings) AS listings,
      sum(price_tzs_sum) AS price_tzs_sum,
      sum(views) AS views
    FROM cell_quarter_stats
    WHERE is_test = ${p.isTest}
      AND quarter = toDate(${sqlString(p.quarterStart)})
      AND (${p.ranges.map((r) => `h3_index BETWEEN ${r.lo} AND ${r.hi}`).join(' OR ')})
      ${p.type ? `AND property_type = ${sqlString(p.type)}` : ''}
    GROUP BY h3_index
    HAVING listings > 0`,
});
