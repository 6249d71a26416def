// GET /api/v1/openapi.json (no key needed): the document of every path registered so far.
import { Router } from 'express';
import type { OpenApiRegistry } from './registry.ts';

export function createOpenApiRouter(registry: OpenApiRegistry): Router {
  const router = Router();
  let cached: string | undefined;
  router.get('/openapi.json', (_req, res) => {
    // Routes register at start-up, so the document is rendered once, on the first request.
    cached ??= JSON.stringify(registry.document());
    res.type('application/json').send(cached);
  });
  registry.register({
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApi',
    summary: 'This OpenAPI 3.1 document',
    tags: ['meta'],
    auth: false,
    responses: { 200: { description: 'The OpenAPI document' } },
  });
  return router;
}
