// Audit events of key management (create, roll, revoke; from the API or the CLI), one row each in
// the ClickHouse table key_audit_events (migration 0060, docs/auth.md "Audit of key changes").
//
// Why an outbox in Redis instead of a direct insert: the key store appends the event to a Redis
// stream right after the change it records (key-store.ts; the change and the outbox are in
// different slots, so not in one transaction: a process that dies between the two loses the event,
// never records one that did not happen), and key management never waits for or depends on
// ClickHouse. That matters most for revocation: a leaked key must be revocable while the warehouse
// is down. key-audit-flush.ts then copies the stream into ClickHouse (right after each change, and
// every minute from the stream worker for whatever an outage left behind).
//
// Every account's changes go to one outbox, so it is REDIS_GLOBAL_PARTS parts (by account); the
// flush visits every part. Each part has its dead stream beside it.
import type { Redis } from 'ioredis';
import { redisScript } from '../clients/redis-script.ts';
import { newId } from '../ids.ts';
import { partOf, partSpace } from '../redis-keys/tags.ts';
import type { KeyAuditRow } from '../warehouse/key-audit-events.ts';
import type { KeyMode } from './api-key-format.ts';
import type { Role } from './roles.ts';
import type { Tier } from './tiers.ts';

export type KeyAction = KeyAuditEvent['action'];

/** Who made a change: an admin key over the API, or the operator's CLI. */
export type KeyActor =
  { source: 'api'; keyId: string; clientIp: string; requestId: string } | { source: 'cli'; operator: string };

/** One event: a row of key_audit_events (common/warehouse/key-audit-events.ts), as queued and inserted. */
export type KeyAuditEvent = KeyAuditRow;

/** Part `part` of the Redis stream holding events not yet in ClickHouse (field `event`: the JSON row). */
export const keyAuditOutboxKey = (prefix: string, part: number): string =>
  `${partSpace(prefix, part)}audit:keys`;
/** Events of that part ClickHouse refused for their content (never retried; see key-audit-flush.ts). */
export const keyAuditDeadKey = (prefix: string, part: number): string =>
  `${partSpace(prefix, part)}audit:keys:dead`;

// KEYS[1] the outbox part, ARGV[1] the event JSON. A script so that it runs at Redis' maxmemory
// ceiling too: a revocation then still records its event.
const appendScript = redisScript(`return redis.call('XADD', KEYS[1], '*', 'event', ARGV[1])`, {
  freesMemory: true,
});

/** Appends the event to the outbox part of its account. */
export async function appendKeyAuditEvent(
  redis: Redis,
  prefix: string,
  parts: number,
  event: KeyAuditEvent,
): Promise<void> {
  const outbox = keyAuditOutboxKey(prefix, partOf(event.account_id, parts));
  await appendScript.run(redis, 1, outbox, JSON.stringify(event));
}

export interface AuditedKey {
  id: string;
  account_id: string;
  prefix: string;
  name: string;
  mode: KeyMode;
  tier: Tier;
  role: Role;
}

export function keyAuditEvent(
  action: KeyAction,
  actor: KeyActor,
  key: AuditedKey,
  at: Date,
  roll?: { newKeyId: string; expiresAt: string },
): KeyAuditEvent {
  return {
    event_id: newId(),
    occurred_at: at.toISOString(),
    action,
    source: actor.source,
    account_id: key.account_id,
    actor_key_id: actor.source === 'api' ? actor.keyId : '',
    client_ip: actor.source === 'api' ? actor.clientIp : '',
    operator: actor.source === 'cli' ? actor.operator : '',
    request_id: actor.source === 'api' ? actor.requestId : '',
    key_id: key.id,
    key_prefix: key.prefix,
    key_name: key.name,
    mode: key.mode,
    tier: key.tier,
    role: key.role,
    new_key_id: roll?.newKeyId ?? '',
    expires_at: roll?.expiresAt ?? null,
  };
}
