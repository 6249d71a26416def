// The webhook paths in the OpenAPI document (common/openapi/registry.ts); docs/webhooks.md has the prose.
import { z } from 'zod';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import { registerBodySchema } from './service.ts';
import { webhookRecordSchema } from '../../common/webhooks/store.ts';

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
const idParam = { name: 'id', in: 'path' as const, schema: z.string() };

export function registerWebhookPaths(registry: OpenApiRegistry): void {
  const tags = ['webhooks'];
  registry.register({
    method: 'post',
    path: '/webhooks/register',
    operationId: 'registerWebhook',
    summary: 'Register a webhook URL (at most 10 per account); returns its signing secret once',
    description:
      'https required for live keys; the URL must resolve to public addresses (see docs/webhooks.md, SSRF policy).',
    tags,
    requestBody: registerBodyDocSchema,
    responses: { 201: { description: 'The webhook, with its secret', schema: createdSchema } },
    errors: [400, 409, 415, 503],
  });
  registry.register({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: "The account's webhooks of the key's mode (never the secret)",
    tags,
    responses: { 200: { description: 'Webhooks', schema: z.object({ data: z.array(webhookRecordSchema) }) } },
    errors: [503],
  });
  registry.register({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'One webhook, with its delivery status',
    tags,
    parameters: [idParam],
    responses: { 200: { description: 'The webhook', schema: webhookRecordSchema } },
    errors: [404, 503],
  });
  registry.register({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Unregister a webhook; pending deliveries are dropped',
    tags,
    parameters: [idParam],
    responses: {
      200: {
        description: 'Deleted',
        schema: z.object({ id: z.string(), status: z.literal('deleted') }),
      },
    },
    errors: [404, 503],
  });
  registry.register({
    method: 'post',
    path: '/webhooks/{id}/test',
    operationId: 'sendWebhookTest',
    summary: 'Queue a webhook.test event for this webhook (body: {})',
    tags,
    parameters: [idParam],
    requestBody: z.object({}),
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
  });
}
