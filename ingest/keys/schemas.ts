// /keys request and response bodies (contract "API keys"; docs/auth.md "Managing keys over the
// API"), as zod schemas: the same ones validate requests and describe them in OpenAPI.
import { z } from 'zod';
import { keyModes } from '../../common/auth/api-key-format.ts';
import { keyNameSchema } from '../../common/auth/key-name.ts';
import { roles } from '../../common/auth/roles.ts';
import { tiers } from '../../common/auth/tiers.ts';

export const ROLL_DEFAULT_HOURS = 24;
export const ROLL_MAX_HOURS = 168;

// Well-formed Unicode only (a lone surrogate would be mangled in Redis and refused by ClickHouse
// in the audit row), and no control or format characters (common/auth/key-name.ts).
const keyName = keyNameSchema;

export const createKeyBodySchema = z
  .strictObject({
    mode: z.enum(keyModes).meta({ description: 'live, or test; a test key may create test keys only' }),
    name: keyName.optional().meta({
      description:
        'Label shown in lists (default empty); no control or format characters (Unicode Cc, Cf: ' +
        'line breaks, NUL, bidi overrides), refused with code invalid_characters',
    }),
    tier: z.enum(tiers).optional().meta({ description: "Default and maximum: the creating key's tier" }),
    role: z
      .enum(roles)
      .optional()
      .meta({ description: 'standard (default) or admin; portal is given by the operator only' }),
  })
  .meta({ title: 'CreateKeyRequest' });
export type CreateKeyBody = z.output<typeof createKeyBodySchema>;

export const rollKeyBodySchema = z
  .strictObject({
    expires_in_hours: z
      .number()
      .positive()
      .max(ROLL_MAX_HOURS)
      .optional()
      .meta({
        description: `Grace period of the old key in hours, fractions allowed (default ${ROLL_DEFAULT_HOURS}, at most ${ROLL_MAX_HOURS})`,
      }),
  })
  .meta({ title: 'RollKeyRequest' });
export type RollKeyBody = z.output<typeof rollKeyBodySchema>;

const nullableTime = z.string().nullable();
export const keyRecordSchema = z
  .object({
    id: z.string().meta({ description: 'key_…' }),
    account_id: z.string(),
    prefix: z.string().meta({ description: 'Display prefix, e.g. svc_live_AbCd…; never the key' }),
    name: z.string(),
    mode: z.enum(keyModes),
    tier: z.enum(tiers),
    role: z.enum(roles),
    status: z.enum(['active', 'revoked']).meta({ description: 'revoked also after a roll expired' }),
    rate_limit: z.number().int().meta({ description: 'Requests per minute' }),
    created_at: z.string(),
    last_used_at: nullableTime,
    revoked_at: nullableTime.meta({ description: 'Revocation, or the expiry of a rolled key' }),
    expires_at: nullableTime.meta({ description: 'Set by a roll: the key works until then' }),
    replaced_by: z.string().nullable().meta({ description: 'Set by a roll: the replacement key id' }),
  })
  .meta({ title: 'ApiKey' });
export type KeyRecordBody = z.infer<typeof keyRecordSchema>;

export const createdKeySchema = keyRecordSchema
  .extend({ key: z.string().meta({ description: 'The plaintext key: shown in this response only' }) })
  .meta({ title: 'CreatedApiKey' });

export const rolledKeySchema = createdKeySchema
  .extend({
    replaces: z.object({ id: z.string(), expires_at: z.string() }).meta({
      description: 'The rolled key, valid until expires_at, then revoked',
    }),
  })
  .meta({ title: 'RolledApiKey' });

/** Most keys on one page of GET /keys (also the default): an account rarely has more. */
export const KEY_PAGE_MAX = 1_000;

export const keyListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(KEY_PAGE_MAX).optional(),
  after: z
    .string()
    .regex(/^key_[0-9a-f]{24}$/)
    .optional(),
});
export type KeyListQuery = z.output<typeof keyListQuerySchema>;

export const keyListSchema = z
  .object({
    keys: z.array(keyRecordSchema),
    next_after: z.string().nullable().describe('Pass as `after` for the next page; null on the last page'),
  })
  .meta({ title: 'ApiKeyList' });

export const revokedKeySchema = z.object({ id: z.string(), status: z.literal('revoked') });

// GET /keys/audit: the account's key changes as recorded in key_audit_events, without `operator`
// (the service operator's user@host is the service's own business; `source: cli` says enough).
export const keyAuditEventSchema = z
  .object({
    event_id: z.string(),
    occurred_at: z.string().meta({ description: 'UTC, to the second' }),
    action: z.enum(['create', 'roll', 'revoke']),
    source: z.enum(['api', 'cli']).meta({ description: "api: an admin key; cli: the service's operator" }),
    actor_key_id: z.string().nullable().meta({ description: 'The admin key that acted (null from the CLI)' }),
    client_ip: z.string().nullable(),
    request_id: z.string().nullable().meta({ description: 'As in X-Request-Id of that request' }),
    key_id: z.string().meta({ description: 'The key created, rolled (the old one) or revoked' }),
    key_prefix: z.string(),
    key_name: z.string(),
    mode: z.enum(keyModes),
    tier: z.enum(tiers),
    role: z.enum(roles),
    new_key_id: z.string().nullable().meta({ description: 'roll: the replacement key' }),
    expires_at: nullableTime.meta({ description: 'roll: when the old key stops working' }),
  })
  .meta({ title: 'KeyAuditEvent' });
export type KeyAuditEventBody = z.infer<typeof keyAuditEventSchema>;

export const keyAuditListSchema = z
  .object({ events: z.array(keyAuditEventSchema) })
  .meta({ title: 'KeyAuditEventList' });
