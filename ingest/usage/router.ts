// GET /listings/bulk: key status and usage (spec §4.2). Mounted by ingest/router.ts.
import { Router } from 'express';
import { authenticate, authOf, requirePermission } from '../../common/auth/authenticate.ts';
import { dependencyUnavailable } from '../../common/errors.ts';
import type { IngestContext } from '../context.ts';
import { keyStatus } from './key-status.ts';

export function createUsageRouter(ctx: IngestContext): Router {
  const router = Router();
  const deps = { redis: ctx.platform.redis, prefix: ctx.platform.env.REDIS_KEY_PREFIX };

  router.get(
    '/listings/bulk',
    authenticate(ctx.platform.keys),
    requirePermission('usage:read'),
    async (req, res) => {
      const auth = authOf(req);
      // authenticate always sets rateLimit together with auth.
      const status = await keyStatus(deps, auth, req.rateLimit!).catch((error: unknown) => {
        throw dependencyUnavailable('redis', error);
      });
      res.json(status);
    },
  );

  return router;
}
