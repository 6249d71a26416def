// Expiry (docs/lifecycle.md, "Expiry"): a listing on the market that was neither re-sent nor changed
// for 60 days (listing_states.updated_at) expires. A scheduled job inside the stream worker
// (LIFECYCLE_EXPIRY_CRON, default daily at 03:17 UTC; node-cron) finds them and publishes status
// changes to rls.listing-status.v1 like any other producer: status expired, source expiry,
// at = updated_at + 60 days (when it expired, not when the job noticed), and unless_updated_after =
// the updated_at it saw, so a listing re-sent or changed in between is left alone by the stream.
// A Redis lock lets one worker of the group run each scheduled pass.
import type { ClickHouseClient } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import cron from 'node-cron';
import { z } from 'zod';
import { EXPIRY_AFTER_MS, type StatusItem, type StatusMessage } from '../../common/domain/lifecycle.ts';
import { parseEnv } from '../../common/env.ts';
import { errorFields, type Logger } from '../../common/logger.ts';
import type { Platform } from '../../common/platform.ts';
import { listingStatesTable } from '../../common/warehouse/lifecycle.ts';
import { defineQuery } from '../../common/warehouse/query.ts';

export const expiryEnvSchema = z.object({
  LIFECYCLE_EXPIRY_CRON: z
    .string()
    .default('17 3 * * *')
    .refine((expression) => cron.validate(expression), 'must be a cron expression'),
});

/** Items per published message (a message stays far below Kafka's 1 MB). */
const ITEMS_PER_MESSAGE = 1_000;
const LOCK_SECONDS = 3_600;

export interface ExpiryDeps {
  clickhouse: ClickHouseClient;
  publish(message: StatusMessage & { items: StatusItem[] }): Promise<void>;
  now?: () => number;
  /** Only this account (tests, an operator's targeted run); default every account. */
  accountId?: string;
}

const dueRow = z.object({
  listing_id: z.string(),
  account_id: z.string(),
  is_test: z.number(),
  updated_at: z.number(),
});
type Due = z.infer<typeof dueRow>;

// A background scan of the current states (FINAL: the latest version of each listing first).
const dueQuery = defineQuery({
  name: 'expiry_due',
  params: z.object({ account: z.string().nullable(), cutoff: z.number().int() }),
  row: dueRow,
  sql: `SELECT toString(listing_id) AS listing_id, account_id, is_test, toUnixTimestamp(updated_at) AS updated_at
     FROM (SELECT * FROM ${listingStatesTable.name} FINAL
           WHERE isNull({account:Nullable(String)}) OR account_id = {account:Nullable(String)})
     WHERE status IN ('active', 'under_contract') AND updated_at <= toDateTime({cutoff:UInt32}, 'UTC')
     ORDER BY account_id, is_test`,
  // A background job: as long as the client waits for any request.
  maxSeconds: 30,
});

/** One pass: publishes an expiry for every listing due; returns how many. */
export async function runExpiry(deps: ExpiryDeps): Promise<number> {
  const now = deps.now?.() ?? Date.now();
  const cutoff = Math.floor((now - EXPIRY_AFTER_MS) / 1000);
  const { rows: due } = await dueQuery.run(deps.clickhouse, { account: deps.accountId ?? null, cutoff });
  const groups = new Map<string, Due[]>();
  for (const row of due) {
    const key = `${row.account_id}\n${row.is_test}`;
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  const receivedAt = new Date(now).toISOString();
  for (const rows of groups.values()) {
    for (let i = 0; i < rows.length; i += ITEMS_PER_MESSAGE) {
      const chunk = rows.slice(i, i + ITEMS_PER_MESSAGE);
      await deps.publish({
        v: 1,
        kind: 'status',
        source: 'expiry',
        account_id: chunk[0]!.account_id,
        is_test: Number(chunk[0]!.is_test) === 1,
        received_at: receivedAt,
        items: chunk.map((r) => {
          const seen = Number(r.updated_at) * 1000;
          return {
            listing_id: r.listing_id,
            status: 'expired' as const,
            at: new Date(seen + EXPIRY_AFTER_MS).toISOString(),
            unless_updated_after: new Date(seen).toISOString(),
          };
        }),
      });
    }
  }
  return due.length;
}

/** The pass on its schedule; one worker of the group runs it (a Redis lock for that hour). */
export function startExpiryJob(
  platform: Platform,
  publish: ExpiryDeps['publish'],
  env: NodeJS.ProcessEnv,
): { stop(): Promise<void> } {
  const { LIFECYCLE_EXPIRY_CRON } = parseEnv(expiryEnvSchema, env);
  const logger = platform.logger.child({ task: 'lifecycle-expiry' });
  let running: Promise<unknown> = Promise.resolve();
  const task = cron.schedule(
    LIFECYCLE_EXPIRY_CRON,
    () => {
      running = expireOnce(platform.redis, platform.env.REDIS_KEY_PREFIX, logger, () =>
        runExpiry({ clickhouse: platform.clickhouse, publish }),
      );
      return running;
    },
    { noOverlap: true, name: 'lifecycle-expiry', timezone: 'Etc/UTC' },
  );
  return {
    async stop() {
      await task.stop();
      await running;
    },
  };
}

async function expireOnce(redis: Redis, prefix: string, logger: Logger, run: () => Promise<number>) {
  const lock = `${prefix}lifecycle:expiry:${new Date().toISOString().slice(0, 13)}`;
  try {
    if ((await redis.set(lock, '1', 'EX', LOCK_SECONDS, 'NX')) !== 'OK') return;
    const started = Date.now();
    const expired = await run();
    logger.info('expiry pass', { expired, ms: Date.now() - started });
  } catch (error) {
    // The lock stays for its hour; the next scheduled pass finds whatever is still due.
    logger.warn('expiry pass failed', errorFields(error));
  }
}
