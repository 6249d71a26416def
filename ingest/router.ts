// The ingest API's routes under /api/v1; each feature module brings its own router.
import { Router } from 'express';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import type { IngestContext } from './context.ts';
import { createKeysRouter } from './keys/router.ts';
import { createLifecycleRouter } from './lifecycle/routes.ts';
import { createListingsRouter } from './listings/routes.ts';
import { registerIngestPaths } from './openapi.ts';
import { createUsageRouter } from './usage/router.ts';
import { createViewsRouter } from './views/routes.ts';
import { createWebhooksRouter } from './webhooks/router.ts';

export function createIngestRouter(ctx: IngestContext, openapi?: OpenApiRegistry): Router {
  const router = Router();
  router.use(createListingsRouter(ctx));
  router.use(createViewsRouter(ctx));
  router.use(createUsageRouter(ctx)); // GET /listings/bulk: key status and usage
  router.use(createLifecycleRouter(ctx, openapi)); // after the other /listings/… routes
  router.use(createWebhooksRouter(ctx, openapi));
  router.use(createKeysRouter(ctx, openapi)); // /keys: admin keys manage their account's keys
  if (openapi) registerIngestPaths(openapi);
  return router;
}
