// Webhooks in Redis (AOF-persisted), per account and under the account's hash tag: one hash per
// webhook and a sorted set of the account's webhook ids. Every caller knows the account (the API
// key's, or the delivery's and the event's). The ingest API writes them (register/delete); the stream's delivery worker
// reads them and records outcomes. Every write that could race a delete only touches an existing
// hash (Lua), so a delivery finishing after DELETE never resurrects the webhook.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { redisScript } from '../clients/redis-script.ts';
import type { KeyMode } from '../auth/api-key-format.ts';
import { accountSpace } from '../redis-keys/tags.ts';

/** Events a webhook can subscribe to; `webhook.test` is sent on request to the one webhook. */
export const SUBSCRIBABLE_EVENTS = ['listings.batch.completed'] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];
export type EventType = SubscribableEvent | 'webhook.test';

export const MAX_WEBHOOKS_PER_ACCOUNT = 10;

const nullableTime = z.string().nullable();
/** A webhook as the store keeps it and the API shows it (GET /webhooks), without its secret. */
export const webhookRecordSchema = z.object({
  id: z.string().describe('wh_…'),
  account_id: z.string(),
  mode: z
    .enum(['live', 'test'])
    .describe('live webhooks get live events; test webhooks get test-mode events'),
  url: z.string(),
  events: z.array(z.enum(SUBSCRIBABLE_EVENTS)),
  description: z.string(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z.string().nullable(),
  disabled_at: nullableTime,
  created_at: z.string(),
  failing_since: nullableTime,
  last_success_at: nullableTime,
  last_failure_at: nullableTime,
  last_failure_reason: z.string().nullable(),
});
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;

export interface StoredWebhook extends WebhookRecord {
  secret: string;
}

export interface NewWebhook {
  account_id: string;
  mode: KeyMode;
  url: string;
  events: SubscribableEvent[];
  description: string;
}

// KEYS[1] account set, KEYS[2] webhook hash; ARGV[1] cap, ARGV[2] id, ARGV[3] score, ARGV[4..] fields.
const createScript = redisScript(`
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
return 1
`);

// KEYS[1] account set, KEYS[2] webhook hash; ARGV[1] account, ARGV[2] mode, ARGV[3] id.
const deleteScript = redisScript(
  `
if redis.call('HGET', KEYS[2], 'account_id') ~= ARGV[1] or redis.call('HGET', KEYS[2], 'mode') ~= ARGV[2] then
  return 0
end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[3])
return 1
`,
  { freesMemory: true },
);

// KEYS[1] webhook hash; ARGV[1] 'setnx' field or '', ARGV[2] its value, ARGV[3..] fields to set.
const updateScript = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[1] ~= '' then redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) end
if #ARGV > 2 then redis.call('HSET', KEYS[1], unpack(ARGV, 3)) end
return 1
`);

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A webhook's hash, and the set of an account's webhook ids. */
export const webhookKeys = (prefix: string) => ({
  webhook: (account: string, id: string) => `${accountSpace(prefix, account)}webhook:${id}`,
  accountWebhooks: (account: string) => `${accountSpace(prefix, account)}account:${account}:webhooks`,
});

type WebhookKeys = ReturnType<typeof webhookKeys>;

export function webhookStore(redis: Redis, prefix: string) {
  const keys = webhookKeys(prefix);
  const get = (accountId: string, id: string) => getWebhook(redis, keys, accountId, id);
  return {
    create: (input: NewWebhook) => createWebhook(redis, keys, input),
    /** The account's webhook (another account's looks exactly like an unknown id). */
    get,
    /** The webhook if it belongs to this account and mode (others' look exactly like unknown ids). */
    async getOwned(accountId: string, mode: KeyMode, id: string): Promise<StoredWebhook | null> {
      const found = await get(accountId, id);
      return found && found.account_id === accountId && found.mode === mode ? found : null;
    },
    /** The account's webhooks of one mode, oldest first. */
    async list(accountId: string, mode?: KeyMode): Promise<StoredWebhook[]> {
      const ids = await redis.zrange(keys.accountWebhooks(accountId), 0, -1);
      const found = await Promise.all(ids.map((id) => get(accountId, id)));
      return found.filter((w): w is StoredWebhook => w !== null && (mode === undefined || w.mode === mode));
    },
    async delete(accountId: string, mode: KeyMode, id: string): Promise<boolean> {
      const result = await deleteScript.run(
        redis,
        2,
        keys.accountWebhooks(accountId),
        keys.webhook(accountId, id),
        accountId,
        mode,
        id,
      );
      return result === 1;
    },
    recordSuccess: (accountId: string, id: string, at: string) =>
      recordSuccess(redis, keys, accountId, id, at),
    async recordFailure(accountId: string, id: string, at: string, reason: string): Promise<void> {
      await update(redis, keys.webhook(accountId, id), { last_failure_at: at, last_failure_reason: reason }, [
        'failing_since',
        at,
      ]);
    },
    async disable(accountId: string, id: string, reason: string, at: string): Promise<void> {
      await update(redis, keys.webhook(accountId, id), {
        status: 'disabled',
        disabled_reason: reason,
        disabled_at: at,
      });
    },
  };
}

export type WebhookStore = ReturnType<typeof webhookStore>;

/** Creates a webhook unless the account already has MAX_WEBHOOKS_PER_ACCOUNT; null then. */
async function createWebhook(
  redis: Redis,
  keys: WebhookKeys,
  input: NewWebhook,
): Promise<StoredWebhook | null> {
  const now = new Date();
  const record: StoredWebhook = {
    id: `wh_${randomBytes(12).toString('hex')}`,
    ...input,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    created_at: now.toISOString(),
    failing_since: null,
    last_success_at: null,
    last_failure_at: null,
    last_failure_reason: null,
    secret: newSigningSecret(),
  };
  const fields = toHash(record);
  const created = await createScript.run(
    redis,
    2,
    keys.accountWebhooks(input.account_id),
    keys.webhook(input.account_id, record.id),
    String(MAX_WEBHOOKS_PER_ACCOUNT),
    record.id,
    String(now.getTime()),
    ...Object.entries(fields).flat(),
  );
  return created === 1 ? record : null;
}

async function getWebhook(
  redis: Redis,
  keys: WebhookKeys,
  accountId: string,
  id: string,
): Promise<StoredWebhook | null> {
  const fields = await redis.hgetall(keys.webhook(accountId, id));
  return fields.id && fields.account_id === accountId ? fromHash(fields) : null;
}

async function recordSuccess(redis: Redis, keys: WebhookKeys, accountId: string, id: string, at: string) {
  const key = keys.webhook(accountId, id);
  await redis
    .multi()
    .eval(updateScript.source, 1, key, '', '', 'last_success_at', at)
    .hdel(key, 'failing_since')
    .exec();
}

/** Sets `fields` (and `setIfMissing` unless set) on an existing webhook hash only (updateScript). */
async function update(
  redis: Redis,
  key: string,
  fields: Record<string, string>,
  setIfMissing?: [string, string],
) {
  const flat = Object.entries(fields).flat();
  await updateScript.run(redis, 1, key, setIfMissing?.[0] ?? '', setIfMissing?.[1] ?? '', ...flat);
}

/** The public view: everything but the secret. */
export function publicRecord(webhook: StoredWebhook): WebhookRecord {
  const { secret: _secret, ...record } = webhook;
  return record;
}

function toHash(record: StoredWebhook): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(record)) {
    if (value === null || value === undefined) continue;
    out[key] = key === 'events' ? JSON.stringify(value) : String(value);
  }
  return out;
}

function fromHash(fields: Record<string, string>): StoredWebhook {
  return {
    id: fields.id!,
    account_id: fields.account_id!,
    mode: fields.mode === 'test' ? 'test' : 'live',
    url: fields.url!,
    events: JSON.parse(fields.events ?? '[]') as SubscribableEvent[],
    description: fields.description ?? '',
    status: fields.status === 'disabled' ? 'disabled' : 'enabled',
    disabled_reason: fields.disabled_reason ?? null,
    disabled_at: fields.disabled_at ?? null,
    created_at: fields.created_at!,
    failing_since: fields.failing_since ?? null,
    last_success_at: fields.last_success_at ?? null,
    last_failure_at: fields.last_failure_at ?? null,
    last_failure_reason: fields.last_failure_reason ?? null,
    secret: fields.secret!,
  };
}
