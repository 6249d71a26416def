// Audit events of key management (create, roll, revoke; from the API or the CLI), one row each in
// the ClickHouse table key_audit_events (migration 0060, docs/auth.md "Audit of key changes").
//
// Why an outbox in Redis instead of a direct insert: the key store appends the event to a Redis
// stream IN THE SAME TRANSACTION as the change (key-store.ts), so exactly the changes that happened
// are recorded, none twice and none that did not happen, and key management never waits for or
// depends on ClickHouse. That matters most for revocation: a leaked key must be revocable while the
// warehouse is down. key-audit-flush.ts then copies the stream into ClickHouse (right after each
// change, and every minute from the stream worker for whatever an outage left behind).
import { newId } from '../ids.ts';
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

/** The Redis stream holding events not yet in ClickHouse (field `event`: the JSON row). */
export const keyAuditOutboxKey = (prefix: string): string => `${prefix}audit:keys`;
/** Events ClickHouse refused for their content (never retried; see key-audit-flush.ts). */
export const keyAuditDeadKey = (prefix: string): string => `${prefix}audit:keys:dead`;

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
