// The webhook outbox: a Redis stream (`<prefix>outbox`, webhookOutboxKey) that the ingest API
// and the stream append events to and the delivery workers' consumer group reads
// (stream/webhooks/fanout.ts). Appends never cap its length: a cap (MAXLEN ~100000) would silently
// drop the oldest *unread* events once a backlog passed it. Instead, entries the
// group has read and acknowledged are trimmed (trimOutbox), and the backlog is watched
// (stream/webhooks/outbox-watch.ts) and shown in /healthz (outboxStats).
import type { Redis } from 'ioredis';

export const OUTBOX_GROUP = 'webhooks';
export const webhookOutboxKey = (prefix: string) => `${prefix}outbox`;

export interface OutboxStats {
  /** Entries in the stream. */
  length: number;
  /** Not yet read by the group (all of them while the group does not exist). */
  unread: number;
  /** Read by a worker, not yet acknowledged (being fanned out, or left by a crashed worker). */
  pending: number;
  /** unread + pending: events whose deliveries are not created yet. */
  backlog: number;
}

interface GroupInfo {
  pending: number;
  lastDeliveredId: string;
  /** Redis ≥ 7.0; null when Redis cannot tell. */
  lag: number | null;
}

async function groupInfo(redis: Redis, key: string): Promise<GroupInfo | undefined> {
  let groups: unknown[];
  try {
    groups = (await redis.xinfo('GROUPS', key)) as unknown[];
  } catch (error) {
    if (/no such key/i.test(String((error as Error).message))) return undefined;
    throw error;
  }
  for (const group of groups) {
    const flat = group as unknown[];
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < flat.length; i += 2) fields.set(String(flat[i]), flat[i + 1]);
    if (fields.get('name') !== OUTBOX_GROUP) continue;
    const lag = fields.get('lag');
    return {
      pending: Number(fields.get('pending') ?? 0),
      lastDeliveredId: String(fields.get('last-delivered-id') ?? '0-0'),
      lag: lag === null || lag === undefined ? null : Number(lag),
    };
  }
  return undefined;
}

export async function outboxStats(redis: Redis, key: string): Promise<OutboxStats> {
  const [length, group] = await Promise.all([redis.xlen(key), groupInfo(redis, key)]);
  if (!group) return { length, unread: length, pending: 0, backlog: length };
  // Without a lag from Redis: everything not pending counts as unread (an upper bound).
  const unread = group.lag ?? Math.max(0, length - group.pending);
  return { length, unread, pending: group.pending, backlog: unread + group.pending };
}

/**
 * Removes the entries the group has read and acknowledged: those before the oldest pending entry
 * (or up to the last one delivered, when none is pending). Unread and pending entries are never
 * touched; without the group nothing is. Returns how many entries were removed.
 */
export async function trimOutbox(redis: Redis, key: string): Promise<number> {
  const group = await groupInfo(redis, key);
  if (!group || group.lastDeliveredId === '0-0') return 0;
  let minId = group.lastDeliveredId; // kept itself (one read entry), everything older goes
  if (group.pending > 0) {
    // XPENDING summary: [count, smallest id, greatest id, consumers]. New pending entries are all
    // newer than the last delivered one, so this bound can only be too low, never too high.
    const summary = (await redis.xpending(key, OUTBOX_GROUP)) as [number, string | null, ...unknown[]];
    if (summary[1]) minId = summary[1];
  }
  return redis.xtrim(key, 'MINID', minId);
}
