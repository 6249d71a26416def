// The lifecycle paths in the OpenAPI document (common/openapi/registry.ts); rules in docs/lifecycle.md.
import { z } from 'zod';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import { statusBodyDocSchema, statusResponseSchema, storedListingSchema } from './schemas.ts';

export function registerLifecyclePaths(registry: OpenApiRegistry): void {
  registry.register({
    method: 'post',
    path: '/listings/status',
    operationId: 'updateListingStatuses',
    summary: 'Change the status of up to 100 listings (active, under_contract, rented, withdrawn)',
    description:
      '200 when at least one update was accepted; 400 (code all_listings_failed, the 200 body in ' +
      "error.details) when none was. Only the account's own listings of the request's mode; " +
      "another account's id is a failed entry with code not_found. Applied asynchronously through " +
      'Kafka, in order per account: GET /listings/{listing_id} shows the status once stored. ' +
      'Repeating a status the listing already has changes nothing. Idempotency-Key replays the ' +
      'first answer for 24 h. Tiers: all (permission listings:write). See docs/lifecycle.md.',
    tags: ['listings'],
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        description: 'Optional. Replays the first response for 24 h (header Idempotency-Replayed: true)',
        schema: z.string().min(1).max(255),
      },
    ],
    requestBody: statusBodyDocSchema,
    responses: { 200: { description: 'Accepted (some or all updates)', schema: statusResponseSchema } },
    errors: [400, 409, 413, 415, 422, 503],
  });
  registry.register({
    method: 'get',
    path: '/listings/{listing_id}',
    operationId: 'getListing',
    summary: 'A listing as stored, with its status and image checks (owning account only)',
    description:
      "Another account's listing is 404, as is a listing of the other mode (a live key reads its " +
      'test-mode listings with test_mode=true). Tiers: all (permission listings:write).',
    tags: ['listings'],
    parameters: [
      { name: 'listing_id', in: 'path', schema: z.uuid() },
      {
        name: 'test_mode',
        in: 'query',
        description: "true: a live key reads the account's test-mode listing (test keys always do)",
        schema: z.enum(['true', 'false']),
      },
    ],
    responses: { 200: { description: 'The listing', schema: storedListingSchema } },
    errors: [404, 503],
  });
}
