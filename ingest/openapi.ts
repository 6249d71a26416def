// The ingest API's paths in the OpenAPI document (common/openapi/registry.ts).
import { z } from 'zod';
import type { OpenApiRegistry } from '../common/openapi/registry.ts';
import { idempotencyKeyParam } from './openapi-parameters.ts';
import { batchStatusSchema, bulkBodyDocSchema, bulkResponseSchema } from './listings/schemas.ts';
import { viewsBodyDocSchema, viewsResponseSchema } from './views/schemas.ts';

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
    parameters: [idempotencyKeyParam],
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
    path: '/listings/bulk',
    operationId: 'keyStatus',
    summary: "The key's status, limits, current rate-limit window and usage (spec 4.2)",
    description:
      'Key (never the plaintext), limits, requests and listings today / this month. See docs/auth.md.',
    tags: ['listings'],
    responses: { 200: { description: 'Key status and usage' } },
    errors: [503],
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
    description:
      "Views of the account's own listings in the request's mode only (others: rejected entry not_found), " +
      'unless the key has the portal role; at most 3 views per listing, viewer and UTC day count ' +
      '(view_cap_reached); accepted events count against the daily quota (429 quota_exceeded). ' +
      'Each event is validated on its own: an invalid one (listing_id missing, a field of the wrong ' +
      'type or format) is listed in rejected with its errors and the request still answers 202; only ' +
      'an invalid envelope is 400. See docs/ingest.md.',
    tags: ['events'],
    parameters: [idempotencyKeyParam],
    requestBody: viewsBodyDocSchema,
    responses: {
      202: { description: 'Accepted; invalid events listed by index', schema: viewsResponseSchema },
    },
    errors: [400, 409, 413, 415, 422, 503],
  });
}
