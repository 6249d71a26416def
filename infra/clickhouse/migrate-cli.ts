// `npm run migrate`: applies the migrations to the configured ClickHouse server (CLICKHOUSE_URL,
// or the local stack's when unset), creating CLICKHOUSE_DATABASE if missing. Idempotent; prints
// one line per migration (applied, or already applied) and exits non-zero on any failure.
import { z } from 'zod';
import { envFields, parseEnv } from '../../common/env.ts';
import { runCommand } from '../../common/run.ts';
import { migrate } from './migrate.ts';

await runCommand('migrate', async () => {
  const env = parseEnv(
    z.object({
      CLICKHOUSE_URL: envFields.clickhouseUrl,
      CLICKHOUSE_USER: z.string().default('default'),
      CLICKHOUSE_PASSWORD: z.string().default(''),
      CLICKHOUSE_DATABASE: envFields.clickhouseDatabase,
    }),
  );
  const target = new URL(env.CLICKHOUSE_URL); // printed without credentials
  process.stdout.write(`migrate: ${target.origin} database ${env.CLICKHOUSE_DATABASE}\n`);
  await migrate({
    url: env.CLICKHOUSE_URL,
    username: env.CLICKHOUSE_USER,
    password: env.CLICKHOUSE_PASSWORD,
    database: env.CLICKHOUSE_DATABASE,
    log: (message) => process.stdout.write(`migrate: ${message}\n`),
    logUnchanged: true,
  });
});
