// The ingest API's paths in the OpenAPI document (common/openapi/registry.ts).
import { z } from 'zod';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { batchStatusSchema, bulkBodyDocSchema, bulkResponseSchema } from './listings/schemas.ts';
import { viewsBodyDocSchema, viewsResponseSchema } from './views/schemas.ts';

const idempotencyKey = {
  name: 'Idempotency-Key',
  in: 'header' as const,
  description: 'Optional. Replays the first response for 24 h (header Idempotency-Replayed: true)',
  schema: z.string().min(1).max(255),
};

export function registerIngestPaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'post',
    path: '/listings/bulk',
    operationId: 'bulkCreateListings',
    summary: 'Create up to 100 listings',
    description:
      '201 when at least one listing was created or was a duplicate of an existing one; 400 ' +
      '(code all_listings_failed, the response of 201 in error.details) when none was. Storage is ' +
      'asynchronous: follow GET /listings/batches/{batch_id}. See docs/ingest.md.',
    tags: ['listings'],
    parameters: [idempotencyKey],
    requestBody: bulkBodyDocSchema,
    responses: {
      201: {
        description: 'Accepted (some or all listings)',
        schema: bulkResponseSchema,
        headers: { 'Idempotency-Replayed': 'true when this is a replayed response' },
      },
    },
    errors: [400, 409, 413, 415, 422, 503],
  });
  registry.register({
    method: 'get',
    path: '/listings/batches/{batch_id}',
    operationId: 'getBatch',
    summary: 'Status of a bulk batch: processing until every created listing is stored',
    tags: ['listings'],
    parameters: [{ name: 'batch_id', in: 'path', schema: z.uuid() }],
    responses: { 200: { description: 'The batch', schema: batchStatusSchema } },
    errors: [404, 503],
  });
  registry.register({
    method: 'post',
    path: '/events/views',
    operationId: 'recordViews',
    summary: 'Record up to 1,000 listing views (topic rls.views.v1)',
    tags: ['events'],
    parameters: [idempotencyKey],
    requestBody: viewsBodyDocSchema,
    responses: {
      202: { description: 'Accepted; invalid events listed by index', schema: viewsResponseSchema },
    },
    errors: [400, 409, 413, 415, 422, 503],
  });
  const operatorNote =
    'Body {"status"} only; with X-Operator-Token (OPERATOR_TOKEN) also the components, lag and errors';
  registry.register({
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary:
      'Readiness of Kafka, ClickHouse, Redis and the stream workers (served at /healthz, outside /api/v1)',
    description: operatorNote,
    tags: ['meta'],
    auth: false,
    responses: { 200: { description: 'All components ok' }, 503: { description: 'A component is failing' } },
  });
  registry.register({
    method: 'get',
    path: '/readyz',
    operationId: 'ready',
    summary: "Readiness of this process's own dependencies (served at /readyz, outside /api/v1)",
    description: operatorNote,
    tags: ['meta'],
    auth: false,
    responses: { 200: { description: 'Ready' }, 503: { description: 'A dependency is failing' } },
  });
  registry.register({
    method: 'get',
    path: '/livez',
    operationId: 'live',
    summary: 'The process answers (served at /livez, outside /api/v1); no dependency is checked',
    tags: ['meta'],
    auth: false,
    responses: { 200: { description: 'Alive' } },
  });
}
