import { Router } from 'express';
import { authenticate, authOf, requirePermission } from '../common/auth/authenticate.ts';
import { AppError } from '../common/errors.ts';
import type { IngestContext } from './context.ts';
import { bulkCreate } from './listings/bulk-create.ts';

export function createIngestRouter(ctx: IngestContext): Router {
  const router = Router();
  const auth = authenticate(ctx.platform.keys);

  router.post('/listings/bulk', auth, requirePermission('listings:write'), async (req, res) => {
    const response = await bulkCreate(ctx, authOf(req), req.body);
    if (response.summary.succeeded === 0) {
      throw new AppError('all_listings_failed', 'No listing in the request was valid; see details', {
        details: response.results,
        retriable: false,
      });
    }
    res.status(201).json(response);
  });

  return router;
}
