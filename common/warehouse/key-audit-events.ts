// `key_audit_events`: one row per change of an API key — create, roll or revoke, by an admin key over
// the API or by the operator's CLI (migration 0060; written by common/auth/key-audit-flush.ts).
import type { KeyMode } from '../auth/api-key-format.ts';
import type { Role } from '../auth/roles.ts';
import type { Tier } from '../auth/tiers.ts';
import { defineTable, type DateTimeText } from './table.ts';

export type KeyAuditRow = {
  event_id: string;
  occurred_at: DateTimeText;
  action: 'create' | 'roll' | 'revoke';
  source: 'api' | 'cli';
  account_id: string;
  /** The admin key that acted ('' from the CLI). */
  actor_key_id: string;
  /** The API client's address ('' from the CLI). */
  client_ip: string;
  /** `user@host` of the CLI ('' from the API). */
  operator: string;
  /** The API request id, as in the logs and the X-Request-Id header ('' from the CLI). */
  request_id: string;
  /** The key created, rolled (the old one) or revoked. */
  key_id: string;
  key_prefix: string;
  key_name: string;
  mode: KeyMode;
  tier: Tier;
  role: Role;
  /** roll: the replacement key ('' otherwise). */
  new_key_id: string;
  /** roll: when the old key stops working (null otherwise). */
  expires_at: DateTimeText | null;
};

export const keyAuditEventsTable = defineTable<KeyAuditRow>()('key_audit_events', [
  'event_id',
  'occurred_at',
  'action',
  'source',
  'account_id',
  'actor_key_id',
  'client_ip',
  'operator',
  'request_id',
  'key_id',
  'key_prefix',
  'key_name',
  'mode',
  'tier',
  'role',
  'new_key_id',
  'expires_at',
]);
