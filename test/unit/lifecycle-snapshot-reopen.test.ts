// A snapshot whose completion fails is reopened so its final part can be sent again; when even the
// reopen fails, the service says so in the log (it used to be swallowed), since the snapshot then
// stays `computing` with none of its withdrawals made. The store and ClickHouse read are stand-ins
// for the two failures: the rule under test is the service's (ingest/lifecycle/snapshots.ts).
import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { AppError } from '../../common/errors.ts';
import { createLogger } from '../../common/logger.ts';
import type { SnapshotStore } from '../../ingest/lifecycle/snapshot-store.ts';
import { submitPart } from '../../ingest/lifecycle/snapshots.ts';

const auth = { account_id: 'acct_reopen', mode: 'live', tier: 'business' } as ApiKeyRecord;

function deps(reopen: () => Promise<void>) {
  const lines: Record<string, unknown>[] = [];
  const store = {
    addPart: async () => ({ state: 'complete', received: 1, stored: true }),
    hasPart: async () => false,
    reopen,
  } as unknown as SnapshotStore;
  return {
    lines,
    deps: {
      store,
      quota: { reserve: async () => undefined, refund: async () => undefined },
      activeStock: async () => {
        throw new Error('ClickHouse connection refused');
      },
      publish: async () => undefined,
      logger: createLogger('debug', {}, (line) => lines.push(JSON.parse(line) as Record<string, unknown>)),
    },
  };
}

const part = { snapshot_id: 'feed-2026-11-23', part: 1, parts: 1, external_ids: ['A-1'] };

describe('snapshot completion failures (error)', () => {
  it('reopens the part and answers 503 when the stock cannot be read', async () => {
    let reopened = 0;
    const { deps: d, lines } = deps(async () => {
      reopened++;
    });
    const error = await submitPart(d, auth, part).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect(reopened).toBe(1);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
  });

  it('logs a warning naming the account, snapshot and part when the reopen fails too', async () => {
    const { deps: d, lines } = deps(async () => {
      throw new Error('Redis connection lost');
    });
    const error = await submitPart(d, auth, part).catch((e: unknown) => e);
    expect((error as AppError).status).toBe(503);
    const warning = lines.find((l) => l.msg === 'snapshot part not reopened after a failed completion');
    expect(warning).toMatchObject({
      level: 'warn',
      account_id: 'acct_reopen',
      snapshot_id: 'feed-2026-11-23',
      part: 1,
      error: 'Error: Redis connection lost',
    });
  });
});
