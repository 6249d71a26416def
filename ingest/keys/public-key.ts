// A key as the API shows it to its holder (GET /listings/bulk) or to an admin (the key management
// endpoints): never the hash or the plaintext, and every optional field present, null when unset.
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import type { KeyRecordBody } from './schemas.ts';

/** What every answer about a key shows; the key status answer shows only this. */
export function keyIdentity(record: ApiKeyRecord) {
  return {
    id: record.id,
    account_id: record.account_id,
    prefix: record.prefix,
    name: record.name,
    mode: record.mode,
    tier: record.tier,
    role: record.role,
    status: record.status,
    created_at: record.created_at,
    last_used_at: record.last_used_at ?? null,
    expires_at: record.expires_at ?? null,
  };
}

/** The key management endpoints' view: the identity with the rate limit, revocation and replacement. */
export function publicKey(record: ApiKeyRecord): KeyRecordBody {
  return {
    ...keyIdentity(record),
    rate_limit: record.rate_limit,
    revoked_at: record.revoked_at ?? null,
    replaced_by: record.replaced_by ?? null,
  };
}
