// /webhooks routes (spec 4.5, docs/webhooks.md), each declared once (common/http/route.ts): what
// the OpenAPI document says of it and what answers it. Mounted by ingest/router.ts.
import { z } from 'zod';
import { defineRoute, type Route } from '../../common/http/route.ts';
import { createOutboundClient } from '../../common/outbound/index.ts';
import { webhookOutbox } from '../../common/webhooks/outbox.ts';
import { webhookRecordSchema } from '../../common/webhooks/store.ts';
import { webhookStore } from '../../common/webhooks/store.ts';
import type { IngestContext } from '../context.ts';
import { parseBodyWith } from '../validation/body.ts';
import { registerBodySchema, webhookService, type RegisterBody } from './service.ts';

type Deps = ReturnType<typeof webhookService>;

/** What the webhook handlers use: the service over the account's webhooks and their outbox. */
export function webhookDeps(ctx: IngestContext): Deps {
  const { platform } = ctx;
  return webhookService({
    store: webhookStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    outbound: createOutboundClient({
      policy: ctx.outboundPolicy,
      logger: platform.logger.child({ component: 'webhooks' }),
    }),
    outbox: webhookOutbox(platform.redis, platform.env.REDIS_KEY_PREFIX, platform.env.REDIS_GLOBAL_PARTS),
  });
}

const createdSchema = webhookRecordSchema.extend({
  secret: z.string().describe('whsec_<base64>; shown only in this response'),
});
// The URL as the server reads it: an absolute http(s) URL. Whether it may be called (https for live
// keys, public addresses after DNS resolution) is decided when it is registered: a 400 naming why.
const registerBodyDocSchema = registerBodySchema.extend({
  url: z
    .string()
    .max(2048)
    .regex(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^\s/?#]+([/?#]\S*)?$/)
    .meta({
      format: 'uri',
      description: 'http(s) URL; https for live keys; must resolve to public addresses',
    }),
});
/** Read with registerBodySchema, before the URL is resolved: a 400 naming the field. */
export const registerBody = {
  schema: registerBodyDocSchema,
  parse: parseBodyWith(registerBodySchema, 'Body must be {"url", "events"?, "description"?}'),
};
const idParam = { name: 'id', in: 'path' as const, schema: z.string() };
const common = { tags: ['webhooks'], access: { permission: 'webhooks:manage' as const } };

export const webhookRoutes: Route<Deps>[] = [
  defineRoute<Deps, undefined, RegisterBody>({
    ...common,
    method: 'post',
    path: '/webhooks/register',
    operationId: 'registerWebhook',
    summary: 'Register a webhook URL (at most 10 per account); returns its signing secret once',
    description:
      'https required for live keys; the URL must resolve to public addresses (see docs/webhooks.md, SSRF policy).',
    body: registerBody,
    responses: { 201: { description: 'The webhook, with its secret', schema: createdSchema } },
    errors: [400, 409, 415, 503],
    handler: async ({ auth, body }, service) => ({ status: 201, body: await service.register(auth, body) }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "The account's webhooks of the key's mode (never the secret)",
    responses: { 200: { description: 'Webhooks', schema: z.object({ data: z.array(webhookRecordSchema) }) } },
    errors: [503],
    handler: async ({ auth }, service) => ({ status: 200, body: { data: await service.list(auth) } }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'One webhook, with its delivery status',
    parameters: [idParam],
    responses: { 200: { description: 'The webhook', schema: webhookRecordSchema } },
    errors: [404, 503],
    handler: async ({ auth, params }, service) => ({
      status: 200,
      body: await service.get(auth, params.id!),
    }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Unregister a webhook; pending deliveries are dropped',
    parameters: [idParam],
    responses: {
      200: {
        description: 'Deleted',
        schema: z.object({ id: z.string(), status: z.literal('deleted') }),
      },
    },
    errors: [404, 503],
    handler: async ({ auth, params }, service) => ({
      status: 200,
      body: await service.remove(auth, params.id!),
    }),
  }),
  defineRoute<Deps>({
    ...common,
    method: 'post',
    path: '/webhooks/{id}/test',
    operationId: 'sendWebhookTest',
    summary: 'Queue a webhook.test event for this webhook (body: {})',
    parameters: [idParam],
    // Not read: a test delivery takes no options, so no Content-Type is required either.
    body: { schema: z.object({}), read: false },
    responses: {
      202: {
        description: 'Queued',
        schema: z.object({
          event_id: z.string(),
          type: z.literal('webhook.test'),
          webhook_id: z.string(),
          queued_at: z.string(),
        }),
      },
    },
    errors: [400, 404, 415, 503],
    handler: async ({ auth, params }, service) => ({
      status: 202,
      body: await service.sendTest(auth, params.id!),
    }),
  }),
];
