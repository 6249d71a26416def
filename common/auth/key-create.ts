// Creating a key (key-store.ts): in a new account, or in an existing one.
import { randomBytes } from 'node:crypto';
import { displayPrefix, generateApiKey, hashApiKey, type KeyMode } from './api-key-format.ts';
import { appendKeyAuditEvent, keyAuditEvent, type KeyActor } from './key-audit.ts';
import { KeyStoreError } from './key-changes.ts';
import { addPointers, writeRecord } from './key-pointers.ts';
import type { ApiKeyRecord } from './key-record.ts';
import type { KeyStoreContext } from './key-store.ts';
import type { Role } from './roles.ts';
import { tierPolicies, tiers, type Tier } from './tiers.ts';

export interface CreateKeyInput {
  mode: KeyMode;
  tier: Tier;
  name?: string;
  /** Default `standard`. */
  role?: Role;
  rateLimit?: number;
  accountId?: string;
}

export async function createKey(
  context: KeyStoreContext,
  input: CreateKeyInput,
  actor?: KeyActor,
): Promise<ApiKeyRecord & { key: string }> {
  const { redis, prefix, parts, keys: k } = context;
  const policy = tierPolicies[input.tier];
  if (!policy) throw new KeyStoreError(`unknown tier ${input.tier}; one of ${tiers.join(', ')}`);
  if (input.rateLimit !== undefined && !policy.customRateLimit) {
    throw new KeyStoreError(`--rate-limit is only available for the enterprise tier, not ${input.tier}`);
  }
  const at = new Date();
  const now = at.toISOString();
  let accountId = input.accountId;
  const newAccount = accountId === undefined;
  if (accountId !== undefined) {
    if (!(await redis.exists(k.account(accountId)))) throw new KeyStoreError(`unknown account ${accountId}`);
  } else {
    accountId = `acct_${randomBytes(12).toString('hex')}`;
  }
  const key = generateApiKey(input.mode);
  const hash = hashApiKey(key);
  const record: ApiKeyRecord = {
    id: `key_${randomBytes(12).toString('hex')}`,
    account_id: accountId,
    mode: input.mode,
    tier: input.tier,
    role: input.role ?? 'standard',
    name: input.name ?? '',
    status: 'active',
    rate_limit: input.rateLimit ?? policy.requestsPerMinute,
    prefix: displayPrefix(key),
    created_at: now,
  };
  await addPointers(context, record, hash, { created: now, newAccount });
  await writeRecord(context, record, hash);
  if (actor) await appendKeyAuditEvent(redis, prefix, parts, keyAuditEvent('create', actor, record, at));
  return { ...record, key };
}
