// The ingest API's routes under /api/v1; each feature module declares its own routes
// (common/http/route.ts), mounted here in Express order and documented in the document's order.
import { Router } from 'express';
import { authenticate } from '../common/auth/authenticate.ts';
import { mountRoutes, registerRoutes, type Route } from '../common/http/route.ts';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import type { IngestContext } from './context.ts';
import { keyDeps, keyRoutes } from './keys/router.ts';
import { lifecycleDeps, lifecycleRoutes } from './lifecycle/routes.ts';
import { batchStatusRoute, bulkCreateRoute, listingDeps } from './listings/routes.ts';
import { keyStatusRoute, usageDeps } from './usage/router.ts';
import { viewDeps, viewsRoute } from './views/routes.ts';
import { webhookDeps, webhookRoutes } from './webhooks/router.ts';

/**
 * The order of the ingest paths in the OpenAPI document (and so in the generated clients). Express
 * needs another: GET /listings/bulk before GET /listings/{listing_id}, which would take "bulk" as an id.
 */
export const ingestDocumentedRoutes: Route<never>[] = [
  ...lifecycleRoutes,
  ...webhookRoutes,
  ...keyRoutes,
  bulkCreateRoute,
  keyStatusRoute,
  batchStatusRoute,
  viewsRoute,
];

export function createIngestRouter(ctx: IngestContext, openapi?: OpenApiRegistry): Router {
  const router = Router();
  const auth = authenticate(ctx.platform.keys);
  mountRoutes(router, auth, [bulkCreateRoute, batchStatusRoute], listingDeps(ctx));
  mountRoutes(router, auth, [viewsRoute], viewDeps(ctx));
  mountRoutes(router, auth, [keyStatusRoute], usageDeps(ctx)); // GET /listings/bulk: key status and usage
  mountRoutes(router, auth, lifecycleRoutes, lifecycleDeps(ctx)); // after the other /listings/… routes
  mountRoutes(router, auth, webhookRoutes, webhookDeps(ctx));
  mountRoutes(router, auth, keyRoutes, keyDeps(ctx)); // /keys: admin keys manage their account's keys
  if (openapi) registerRoutes(openapi, ingestDocumentedRoutes);
  return router;
}
