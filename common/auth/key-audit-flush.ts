// Copies the key audit outbox (Redis stream, key-audit.ts) into ClickHouse key_audit_events.
// Runs right after each change (the API in the background, the CLI before it exits) and every
// minute in the stream worker (stream/jobs/key-audit-flush.ts), which catches up after a ClickHouse outage.
//
// Once: each event is its own insert with insert_deduplication_token = event_id (the table keeps a
// deduplication window, migration 0060), so two processes flushing the same event at once, or a
// flush that died between its insert and the XDEL, still store it once. Key changes are rare, so
// one small insert per event costs nothing worth batching for.
// Failures: a transient one (ClickHouse down, busy, table not migrated yet) stops the flush and
// leaves the events queued for the next one; an event ClickHouse refuses for its content would
// block the queue forever, so it moves to its part's dead stream `audit:keys:dead` with the error, and is
// logged at error level (nothing is dropped silently).
import type { ClickHouseClient, ClickHouseSettings } from '@clickhouse/client';
import type { Redis } from 'ioredis';
import { isTransientClickHouseError } from '../clients/clickhouse.ts';
import { errorFields, type Logger } from '../logger.ts';
import { keyAuditEventsTable } from '../warehouse/key-audit-events.ts';
import { insertRows } from '../warehouse/table.ts';
import { keyAuditDeadKey, keyAuditOutboxKey, type KeyAuditEvent } from './key-audit.ts';

export interface KeyAuditFlushDeps {
  redis: Redis;
  clickhouse: ClickHouseClient;
  prefix: string;
  /** REDIS_GLOBAL_PARTS: the outbox's parts, each flushed in turn. */
  parts: number;
  logger: Logger;
}

/** Events read per round; a flush loops until the outbox is empty. */
const ROUND = 100;

/** Flushes every part of the outbox; returns the events written. Throws on a transient failure. */
export async function flushKeyAudit(deps: KeyAuditFlushDeps): Promise<number> {
  let written = 0;
  for (let part = 0; part < deps.parts; part++) written += await flushPart(deps, part);
  return written;
}

async function flushPart(deps: KeyAuditFlushDeps, part: number): Promise<number> {
  const outbox = keyAuditOutboxKey(deps.prefix, part);
  let written = 0;
  let start = '-';
  for (;;) {
    const entries = await deps.redis.xrange(outbox, start, '+', 'COUNT', ROUND);
    for (const [entryId, fields] of entries) {
      const json = fields[fields.indexOf('event') + 1] ?? '';
      const refused = await insertEvent(deps.clickhouse, json);
      if (refused) {
        deps.logger.error('key audit event refused by ClickHouse; moved to the dead stream', {
          entry_id: entryId,
          error: refused,
        });
        // The dead stream is the outbox part's neighbour (same tag): one transaction.
        await deps.redis
          .multi()
          .xadd(keyAuditDeadKey(deps.prefix, part), '*', 'event', json, 'error', refused)
          .xdel(outbox, entryId)
          .exec();
      } else {
        await deps.redis.xdel(outbox, entryId);
        written++;
      }
    }
    if (entries.length < ROUND) return written;
    start = `(${entries[entries.length - 1]![0]}`;
  }
}

/** Inserts one event; the reason when ClickHouse refuses its content, undefined when stored. */
async function insertEvent(clickhouse: ClickHouseClient, json: string): Promise<string | undefined> {
  let event: KeyAuditEvent;
  try {
    event = JSON.parse(json) as KeyAuditEvent;
  } catch {
    return 'not JSON';
  }
  try {
    // The client's default is deduplicate_insert 'disable' (common/clients/clickhouse.ts); this
    // insert opts in, as the stream writer does (`deduplicate_insert` is missing from the types).
    await insertRows(clickhouse, keyAuditEventsTable, [event], {
      ...({ deduplicate_insert: 'enable' } as ClickHouseSettings),
      insert_deduplication_token: String(event.event_id),
    });
    return undefined;
  } catch (error) {
    if (isTransientClickHouseError(error)) throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/**
 * A process's flusher: `soon()` starts a flush in the background, or, while one runs, one more
 * after it (so the change that asked is included), never several at once. Failures are logged at
 * warn: the events stay queued and the next flush, or the stream worker's, writes them.
 */
export function keyAuditFlusher(deps: KeyAuditFlushDeps) {
  let running: Promise<void> | undefined;
  let again = false;
  const run = async (): Promise<void> => {
    do {
      again = false;
      try {
        await flushKeyAudit(deps);
      } catch (error) {
        deps.logger.warn('key audit flush failed; events stay queued in Redis', errorFields(error));
        return;
      }
    } while (again);
  };
  return {
    soon(): void {
      if (running) {
        again = true;
        return;
      }
      running = run().finally(() => (running = undefined));
    },
    /** Resolves when no flush is running (process shutdown). */
    async idle(): Promise<void> {
      while (running) await running;
    },
  };
}

export type KeyAuditFlusher = ReturnType<typeof keyAuditFlusher>;
