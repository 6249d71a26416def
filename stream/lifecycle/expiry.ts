// Expiry (docs/lifecycle.md, "Expiry"): a listing on the market that was neither re-sent nor changed
// for 60 days (listing_states.updated_at) expires. A scheduled job of the stream worker
// (stream/jobs/listing-expiry.ts) finds them and publishes status
// changes to rls.listing-status.v1 like any other producer: status expired, source expiry,
// at = updated_at + 60 days (when it expired, not when the job noticed), and unless_updated_after =
// the updated_at it saw, so a listing re-sent or changed in between is left alone by the stream.
import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import { EXPIRY_AFTER_MS, type StatusItem, type StatusMessage } from '../../common/domain/lifecycle.ts';
import { listingStateRecord } from '../../common/lifecycle/states.ts';
import { listingStatesTable } from '../../common/warehouse/lifecycle.ts';
import { defineQuery } from '../../common/warehouse/query.ts';

/** Items per published message (a message stays far below Kafka's 1 MB). */
const ITEMS_PER_MESSAGE = 1_000;

export interface ExpiryDeps {
  clickhouse: ClickHouseClient;
  publish(message: StatusMessage & { items: StatusItem[] }): Promise<void>;
  now?: () => number;
  /** Only this account (tests, an operator's targeted run); default every account. */
  accountId?: string;
}

const dueRow = listingStateRecord.pick({
  listing_id: true,
  account_id: true,
  is_test: true,
  updated_at: true,
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
