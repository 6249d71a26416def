// /webhooks routes (spec 4.5, docs/webhooks.md). Mounted by ingest/router.ts.
import { Router } from 'express';
import { authenticate, authOf, requirePermission } from '../../common/auth/authenticate.ts';
import { jsonBody } from '../../common/http/json-body.ts';
import { createOutboundClient } from '../../common/outbound/index.ts';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import type { IngestContext } from '../context.ts';
import { registerWebhookPaths } from './openapi.ts';
import { webhookService } from './service.ts';
import { webhookOutbox } from '../../common/webhooks/outbox.ts';
import { webhookStore } from '../../common/webhooks/store.ts';

export function createWebhooksRouter(ctx: IngestContext, openapi?: OpenApiRegistry): Router {
  const { platform } = ctx;
  if (openapi) registerWebhookPaths(openapi);
  const service = webhookService({
    store: webhookStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    outbound: createOutboundClient({
      policy: ctx.outboundPolicy,
      logger: platform.logger.child({ component: 'webhooks' }),
    }),
    outbox: webhookOutbox(platform.redis, platform.env.REDIS_KEY_PREFIX, platform.env.REDIS_GLOBAL_PARTS),
  });
  const router = Router();
  const guard = [authenticate(platform.keys), requirePermission('webhooks:manage')];

  router.post('/webhooks/register', ...guard, jsonBody(), async (req, res) => {
    res.status(201).json(await service.register(authOf(req), req.body));
  });
  router.get('/webhooks', ...guard, async (req, res) => {
    res.json({ data: await service.list(authOf(req)) });
  });
  router.get('/webhooks/:id', ...guard, async (req, res) => {
    res.json(await service.get(authOf(req), String(req.params.id)));
  });
  router.delete('/webhooks/:id', ...guard, async (req, res) => {
    res.json(await service.remove(authOf(req), String(req.params.id)));
  });
  // No body: a test delivery takes no options, so no Content-Type is required either.
  router.post('/webhooks/:id/test', ...guard, async (req, res) => {
    res.status(202).json(await service.sendTest(authOf(req), String(req.params.id)));
  });
  return router;
}
