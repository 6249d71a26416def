// HTTP for the listing endpoints: POST /listings/bulk and GET /listings/batches/{id}.
import { Router } from 'express';
import { authenticate, authenticatedKey, authOf, requirePermission } from '../../common/auth/authenticate.ts';
import { encodeListingBatch, listingMessageHeaders } from '../../common/domain/messages.ts';
import type { IngestContext } from '../context.ts';
import { resendReporter } from '../lifecycle/resends.ts';
import { idempotentPost, noneAccepted } from '../respond.ts';
import { countListingOutcomes } from '../../common/usage/counters.ts';
import { batchStatus } from './batch-status.ts';
import { bulkCreate, type BulkCreateDeps } from './bulk-create.ts';

export function createListingsRouter(ctx: IngestContext): Router {
  const router = Router();
  const guard = [authenticate(ctx.platform.keys), requirePermission('listings:write')];
  const topic = ctx.platform.topic('rls.listings.v1');
  const reportResends = resendReporter(ctx);
  const deps: BulkCreateDeps = {
    admission: ctx.admission,
    logger: ctx.platform.logger,
    async publish(head, items) {
      const headers = listingMessageHeaders(items);
      await ctx.listingPublisher.publish(
        topic,
        encodeListingBatch(head, items).map((value) => ({ key: head.batch_id, value, headers })),
      );
    },
  };

  const createListings = idempotentPost(ctx, 'bulk', async (auth, body) => {
    const outcome = await bulkCreate(deps, auth, body);
    await countListingOutcomes(ctx.platform, authenticatedKey(auth), outcome.response.summary); // usage statistics
    await reportResends(auth.account_id, outcome.response); // expiry clock, returns (docs/lifecycle.md)
    if (outcome.status === 400) {
      throw noneAccepted('listing', outcome.response);
    }
    return { status: 201, body: outcome.response };
  });
  router.post('/listings/bulk', ...guard, ...createListings);

  router.get('/listings/batches/:batch_id', ...guard, async (req, res) => {
    const status = await batchStatus(
      { batches: ctx.batches, redis: ctx.platform.redis, prefix: ctx.platform.env.REDIS_KEY_PREFIX },
      authOf(req),
      String(req.params.batch_id),
    );
    res.json(status);
  });

  return router;
}
