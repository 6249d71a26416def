// /keys routes: admin keys manage their own account's keys (contract "API keys"; docs/auth.md has
// the prose), each declared once (common/http/route.ts). Mounted by ingest/router.ts. Every route
// needs the admin role, whatever the tier.
import type { Request } from 'express';
import { z } from 'zod';
import { authOf } from '../../common/auth/authenticate.ts';
import type { KeyActor } from '../../common/auth/key-audit.ts';
import { defineRoute, parseQueryWith, type Route } from '../../common/http/route.ts';
import type { IngestContext } from '../context.ts';
import { quotaStore } from '../quota.ts';
import { parseBodyWith } from '../validation/body.ts';
import { KEY_AUDIT_PAGE, readKeyAudit } from './audit-read.ts';
import {
  createdKeySchema,
  createKeyBodySchema,
  keyAuditListSchema,
  keyListQuerySchema,
  keyListSchema,
  revokedKeySchema,
  ROLL_DEFAULT_HOURS,
  ROLL_MAX_HOURS,
  rolledKeySchema,
  rollKeyBodySchema,
  KEY_PAGE_MAX,
  type CreateKeyBody,
  type KeyListQuery,
  type RollKeyBody,
} from './schemas.ts';
import { keyAdminService, MAX_ACTIVE_KEYS_PER_ACCOUNT, refuseRolled } from './service.ts';

const idParam = { name: 'id', in: 'path' as const, schema: z.string().meta({ description: 'key_…' }) };
const adminOnly =
  'Needs a key with the admin role (403 insufficient_role otherwise). A live admin key manages the ' +
  "account's live and test keys, a test admin key its test keys only; other keys are 404. A rolled " +
  'key (in its grace period) may read but not create, roll or revoke keys (403 key_rolled).';

interface Deps {
  service: ReturnType<typeof keyAdminService>;
  clickhouse: IngestContext['platform']['clickhouse'];
}

/** What the key handlers use: the key admin service, and the warehouse for the audit log. */
export function keyDeps(ctx: IngestContext): Deps {
  const { platform } = ctx;
  const service = keyAdminService({
    keys: platform.keys,
    audit: ctx.keyAudit,
    quota: quotaStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    logger: platform.logger.child({ task: 'key-admin' }),
  });
  return { service, clickhouse: platform.clickhouse };
}

const common = { tags: ['keys'], access: { role: 'admin' as const } };

/** The bodies as the service takes them: a mismatch is a 400 validation_failed naming the field. */
export const createKeyBody = {
  schema: createKeyBodySchema,
  parse: parseBodyWith(createKeyBodySchema, 'Body must be {"mode", "name"?, "tier"?, "role"?}'),
};
export const rollKeyBody = {
  schema: rollKeyBodySchema,
  parse: parseBodyWith(rollKeyBodySchema, 'Body must be {} or {"expires_in_hours"}'),
};
/**
 * GET /keys's query: documented as the strings it accepts, parsed to numbers and ids; a mismatch
 * is a 400 invalid_parameter naming the parameter.
 */
export const keyListQuery = {
  schema: z.object({
    limit: z
      .string()
      .regex(/^(?:[1-9][0-9]{0,2}|1000)$/)
      .optional()
      .meta({ description: `Keys per page, 1–${KEY_PAGE_MAX} (default ${KEY_PAGE_MAX})` }),
    after: z
      .string()
      .regex(/^key_[0-9a-f]{24}$/)
      .optional()
      .meta({ description: 'The next_after of the previous page' }),
  }),
  parse: parseQueryWith(keyListQuerySchema, 'limit must be 1–1000 and after a key id'),
};

export const keyRoutes: Route<Deps>[] = [
  defineRoute<Deps, undefined, CreateKeyBody>({
    ...common,
    method: 'post',
    path: '/keys',
    operationId: 'createKey',
    summary: 'Create a key in this account; returns the plaintext key once',
    description:
      `${adminOnly} Tier at most the creating key's (default: the same), role standard (default) ` +
      'or admin, mode live only from a live key (403 scope_exceeded otherwise); at most ' +
      `${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys per account (409 limit_exceeded). Recorded in the ` +
      'warehouse table key_audit_events.',
    body: createKeyBody,
    // A rolled key is refused whatever it sends (the service checks it too).
    keyCheck: refuseRolled,
    responses: { 201: { description: 'The key, with its plaintext', schema: createdKeySchema } },
    errors: [400, 409, 415, 503],
    handler: async ({ auth, body, req }, { service }) => ({
      status: 201,
      body: await service.create(auth, actorOf(req), body),
    }),
  }),
  defineRoute<Deps, KeyListQuery>({
    ...common,
    method: 'get',
    path: '/keys',
    operationId: 'listKeys',
    summary: "The account's keys, oldest first (never the plaintext), a page at a time",
    description: `${adminOnly} Pages of up to limit keys (default and most ${KEY_PAGE_MAX}); next_after names the last key of a page that has a next one; a limit or after that is not as documented, or an after naming no key of the list, is 400 invalid_parameter. Keys revoked more than 30 days ago are no longer listed.`,
    query: keyListQuery,
    responses: { 200: { description: 'Keys', schema: keyListSchema } },
    // 400 invalid_parameter: a limit outside 1–1000 or an after that is not a key id (keyListQuery),
    // and a well-formed after that names no key of the list (service.ts).
    errors: [400, 503],
    handler: async ({ auth, query }, { service }) => ({
      status: 200,
      body: await service.list(auth, query),
    }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'get',
    path: '/keys/audit',
    operationId: 'listKeyAuditEvents',
    summary: "The account's newest key changes (create, roll, revoke), newest first",
    description:
      `${adminOnly} The newest ${KEY_AUDIT_PAGE} rows of key_audit_events for this account (a test ` +
      "admin key: changes of test keys only), by admin keys and by the operator's CLI. A change " +
      'appears a moment after it is made (copied to the warehouse in the background); 503 while ' +
      'the warehouse is unreachable.',
    responses: { 200: { description: 'Audit events', schema: keyAuditListSchema } },
    errors: [503],
    handler: async ({ auth }, { clickhouse }) => ({
      status: 200,
      body: { events: await readKeyAudit(clickhouse, auth) },
    }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'delete',
    path: '/keys/{id}',
    operationId: 'revokeKey',
    summary: 'Revoke a key: refused from its very next request on every process',
    description:
      `${adminOnly} Idempotent. An admin key can be revoked (also by itself) only while another ` +
      'active, not rolled admin key that manages the same keys remains (409 last_admin_key).',
    parameters: [idParam],
    responses: { 200: { description: 'Revoked', schema: revokedKeySchema } },
    errors: [404, 409, 503],
    handler: async ({ auth, params, req }, { service }) => ({
      status: 200,
      body: await service.revoke(auth, actorOf(req), params.id!),
    }),
  }),
  defineRoute<Deps, undefined, RollKeyBody>({
    ...common,
    method: 'post',
    path: '/keys/{id}/roll',
    operationId: 'rollKey',
    summary: 'Replace a key: a new key with the same name, tier and role; the old one works until expires_at',
    description:
      `${adminOnly} Body {} or {"expires_in_hours"} (default ${ROLL_DEFAULT_HOURS}, at most ` +
      `${ROLL_MAX_HOURS}, fractions allowed). ` +
      'The old key is refused (403 revoked_api_key) from expires_at on; no job needed. A key can be ' +
      'rolled once (409 key_not_rollable when revoked or already rolled); the same scope rules as ' +
      'creating apply.',
    parameters: [idParam],
    body: rollKeyBody,
    keyCheck: refuseRolled,
    responses: { 201: { description: 'The new key, with its plaintext', schema: rolledKeySchema } },
    errors: [400, 404, 409, 415, 503],
    handler: async ({ auth, params, body, req }, { service }) => ({
      status: 201,
      body: await service.roll(auth, actorOf(req), params.id!, body),
    }),
  }),
];

/** Who acts, for the audit log: the admin key, the client address ('trust proxy' decides), the request. */
function actorOf(req: Request): KeyActor {
  return {
    source: 'api',
    keyId: authOf(req).id,
    clientIp: (req.ip ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''),
    requestId: req.requestId,
  };
}
