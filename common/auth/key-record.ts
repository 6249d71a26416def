// The stored form of an API key's record (a Redis hash, key-store.ts) and its public view.
import { timingSafeEqual } from 'node:crypto';
import type { KeyMode } from './api-key-format.ts';
import { roleOf, type Role } from './roles.ts';
import type { Tier } from './tiers.ts';

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  mode: KeyMode;
  tier: Tier;
  role: Role;
  name: string;
  status: 'active' | 'revoked';
  /** Requests per minute (the tier's limit, or the enterprise key's own `--rate-limit`). */
  rate_limit: number;
  prefix: string;
  created_at: string;
  last_used_at?: string;
  /** When the key was revoked, or when it expired after a roll. */
  revoked_at?: string;
  /** Set by a roll: the key works until then. */
  expires_at?: string;
  /** Set by a roll: the id of the replacement key. */
  replaced_by?: string;
}

/** The public view of a stored record at `now`: never the hash; a rolled key past expiry is revoked. */
export function toRecord(fields: Record<string, string>, now = new Date()): ApiKeyRecord {
  const expired = !!fields.expires_at && fields.expires_at <= now.toISOString();
  const record: ApiKeyRecord = {
    id: fields.id!,
    account_id: fields.account_id!,
    mode: fields.mode === 'test' ? 'test' : 'live',
    tier: fields.tier as Tier,
    role: roleOf(fields.role),
    name: fields.name ?? '',
    status: fields.status === 'active' && !expired ? 'active' : 'revoked',
    rate_limit: Number(fields.rate_limit),
    prefix: fields.prefix!,
    created_at: fields.created_at!,
  };
  if (fields.last_used_at) record.last_used_at = fields.last_used_at;
  if (fields.revoked_at) record.revoked_at = fields.revoked_at;
  else if (expired) record.revoked_at = fields.expires_at;
  if (fields.expires_at) record.expires_at = fields.expires_at;
  if (fields.replaced_by) record.replaced_by = fields.replaced_by;
  return record;
}

/** The record's fields as stored: the public ones and the key's hash. */
export const storedFields = (record: ApiKeyRecord, hash: string): Record<string, string> =>
  Object.fromEntries(Object.entries({ ...record, hash }).map(([name, value]) => [name, String(value)]));

export function sameHash(stored: string | undefined, computed: string): boolean {
  if (!stored || stored.length !== computed.length) return false;
  return timingSafeEqual(Buffer.from(stored, 'hex'), Buffer.from(computed, 'hex'));
}
