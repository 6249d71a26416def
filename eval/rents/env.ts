// The environment of the real-rent evaluation (npm run rents:fetch, npm run rents:eval;
// docs/analytics.md, "Real rents"): where the datasets live, outside the repository, and the
// ClickHouse the estimate runs against. Parsed once when a script starts; a wrong value stops it with
// the variable named.
import path from 'node:path';
import { z } from 'zod';
import { baseEnvSchema, parseEnv } from '../../common/env.ts';

const rentsEnvSchema = baseEnvSchema
  .pick({ CLICKHOUSE_URL: true, CLICKHOUSE_USER: true, CLICKHOUSE_PASSWORD: true, CLICKHOUSE_DATABASE: true })
  .extend({
    /** The local stack's state folder (as infra/local uses it): the default home of the data. */
    RLS_STATE_DIR: z.string().default('.local'),
    /** Converted datasets (<name>.csv), the raw repositories and the reference model's virtualenv. */
    RENTS_DATA_DIR: z.string().optional(),
    /**
     * A folder of Git copies of the source repositories, each named `owner+name` (a checkout, or a
     * bare repository in `owner+name/repo`); without one, rents:fetch clones from GitHub.
     */
    RENTS_SOURCES_DIR: z.string().optional(),
    /** The month whose new listings are estimated (YYYY-MM); default: each dataset's last month. */
    RENTS_EVAL_MONTH: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'a month YYYY-MM')
      .optional(),
    /** How many of that month's listings are estimated (a random sample, fixed seed). */
    RENTS_EVAL_SAMPLE: z.coerce.number().int().positive().default(500),
    /** Months the backtest runs over before the evaluated month (its interval factors come from them). */
    RENTS_EVAL_BACKTEST_MONTHS: z.coerce.number().int().min(1).max(24).default(4),
    /** Only these datasets (comma-separated names); default all that were fetched. */
    RENTS_DATASETS: z.string().optional(),
  });

const parsed = parseEnv(rentsEnvSchema);
export const rentsEnv = {
  ...parsed,
  dataDir: path.resolve(parsed.RENTS_DATA_DIR ?? path.join(parsed.RLS_STATE_DIR, 'rents')),
};
