// The listing endpoints, each declared once (common/http/route.ts): POST /listings/bulk and
// GET /listings/batches/{batch_id}. The routes translate HTTP only: bulk-create.ts decides,
// publisher.ts publishes.
import { z } from 'zod';
import { authenticatedKey } from '../../common/auth/authenticate.ts';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { defineRoute, type Route } from '../../common/http/route.ts';
import { countListingOutcomes } from '../../common/usage/counters.ts';
import type { IngestContext } from '../context.ts';
import { replayable, type ReplayableHandler } from '../idempotent-route.ts';
import { resendReporter } from '../lifecycle/resends.ts';
import { idempotencyKeyParam } from '../openapi-parameters.ts';
import { noneAccepted } from '../respond.ts';
import { batchStatus } from './batch-status.ts';
import { bulkCreate, type BulkCreateDeps } from './bulk-create.ts';
import { kafkaListingsPublisher } from './publisher.ts';
import { batchStatusSchema, bulkBodyDocSchema, bulkResponseSchema } from './schemas.ts';

interface Deps {
  createListings: ReplayableHandler;
  batchStatus(auth: ApiKeyRecord, batchId: string): Promise<unknown>;
}

/** What the listing handlers use: bulk creation behind the Idempotency-Key store, batch status. */
export function listingDeps(ctx: IngestContext): Deps {
  const reportResends = resendReporter(ctx);
  const publisher = kafkaListingsPublisher(ctx);
  const deps: BulkCreateDeps = {
    admission: ctx.admission,
    logger: ctx.platform.logger,
    publish: (head, items) => publisher.publishListings(head, items),
  };
  const stores = {
    batches: ctx.batches,
    redis: ctx.platform.redis,
    prefix: ctx.platform.env.REDIS_KEY_PREFIX,
  };
  return {
    createListings: replayable(ctx, 'bulk', async (auth, body) => {
      const outcome = await bulkCreate(deps, auth, body);
      await countListingOutcomes(ctx.platform, authenticatedKey(auth), outcome.response.summary); // usage statistics
      await reportResends(auth.account_id, outcome.response); // expiry clock, returns (docs/lifecycle.md)
      if (outcome.status === 400) {
        throw noneAccepted('listing', outcome.response);
      }
      return { status: 201, body: outcome.response };
    }),
    batchStatus: (auth, batchId) => batchStatus(stores, auth, batchId),
  };
}

const common = { tags: ['listings'], access: { permission: 'listings:write' as const } };

export const bulkCreateRoute: Route<Deps> = defineRoute<Deps>({
  ...common,
  method: 'post',
  path: '/listings/bulk',
  operationId: 'bulkCreateListings',
  summary: 'Create up to 100 listings',
  description:
    '201 when at least one listing was created or was a duplicate of an existing one; 400 ' +
    '(code all_listings_failed, the response of 201 in error.details) when none was. Storage is ' +
    'asynchronous: follow GET /listings/batches/{batch_id}. See docs/ingest.md.',
  parameters: [idempotencyKeyParam],
  // Each listing is checked on its own (bulk-create.ts): one invalid listing fails alone.
  body: { schema: bulkBodyDocSchema },
  responses: {
    201: {
      description: 'Accepted (some or all listings)',
      schema: bulkResponseSchema,
      headers: { 'Idempotency-Replayed': 'true when this is a replayed response' },
    },
  },
  errors: [400, 409, 413, 415, 422, 503],
  handler: (input, deps) => deps.createListings(input),
});

export const batchStatusRoute: Route<Deps> = defineRoute<Deps>({
  ...common,
  method: 'get',
  path: '/listings/batches/{batch_id}',
  operationId: 'getBatch',
  summary: 'Status of a bulk batch: processing until every created listing is stored',
  parameters: [{ name: 'batch_id', in: 'path', schema: z.uuid() }],
  responses: { 200: { description: 'The batch', schema: batchStatusSchema } },
  errors: [404, 503],
  handler: async ({ auth, params }, deps) => ({
    status: 200,
    body: await deps.batchStatus(auth, params.batch_id!),
  }),
});
