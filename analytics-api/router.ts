import { Router } from 'express';
import { authenticate, authOf, requirePermission } from '../common/auth/authenticate.ts';
import { AppError } from '../common/errors.ts';
import type { AnalyticsContext } from './context.ts';
import { pricing, pricingParamsSchema } from './queries/pricing.ts';

export function createAnalyticsRouter(ctx: AnalyticsContext): Router {
  const router = Router();
  const auth = authenticate(ctx.platform.keys);

  router.get('/analytics/pricing', auth, requirePermission('analytics:read'), async (req, res) => {
    const params = pricingParamsSchema.safeParse(req.query);
    if (!params.success) {
      throw new AppError('invalid_parameter', 'Invalid query parameters', {
        details: params.error.issues.map((i) => ({ parameter: i.path.join('.'), message: i.message })),
      });
    }
    res.json(await pricing(ctx, params.data, authOf(req).mode === 'test'));
  });

  return router;
}
