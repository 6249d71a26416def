// HTTP of the rent estimates (docs/analytics.md, "Rent estimates"): a point's estimate (contract)
// and a stored listing's for its owner. Same key rules, tier permission, cache and error shape as
// pricing; the numbers come from services/estimate.ts.
import type { RequestHandler, Router } from 'express';
import { authOf, requirePermission } from '../common/auth/authenticate.ts';
import type { AnalyticsContext } from './context.ts';
import { parseEstimateParams, parseListingEstimateParams } from './estimate-params.ts';
import { estimateQuota } from './estimate-quota.ts';
import { searchCentre } from './geo/search-centre.ts';
import { send } from './send-answer.ts';
import { pointEstimateAnswer } from './services/estimate.ts';
import { listingEstimateAnswer } from './services/listing-estimate.ts';

export function addEstimateRoutes(router: Router, ctx: AnalyticsContext, auth: RequestHandler): void {
  const quota = estimateQuota(ctx.platform.redis, ctx.platform.env.REDIS_KEY_PREFIX);
  router.get('/analytics/estimate', auth, requirePermission('analytics:read'), async (req, res) => {
    const p = parseEstimateParams(req.query);
    const caller = authOf(req);
    const { mode, account_id: account } = caller;
    // The answer is the cell's (searched from its centre): counted, and cached, by cell.
    const cell = searchCentre(p.latitude, p.longitude).h3Index;
    await quota.reserveCell(caller, cell);
    // Per account: the account's own comparables show their ids.
    const key = `estimate:${mode}:${account}:${cell}:${p.type}:${p.bedrooms ?? '-'}:${p.bathrooms ?? '-'}:${p.areaSqm ?? '-'}:${p.currency}`;
    const answer = await ctx.cache.getOrCompute({ key, perAccount: true }, account, () =>
      pointEstimateAnswer(ctx.estimates, p, mode === 'test', account),
    );
    // The point as asked, whichever point of the cell the cached answer was computed for.
    const value = {
      ...answer.value,
      subject: { ...answer.value.subject, latitude: p.latitude, longitude: p.longitude },
    };
    send(res, { ...answer, value }, 'account');
  });

  router.get(
    '/listings/:listing_id/estimate',
    auth,
    requirePermission('analytics:read'),
    async (req, res) => {
      const auth = authOf(req);
      const { currency, testMode } = parseListingEstimateParams(req.query);
      const id = String(req.params.listing_id).toLowerCase();
      // Per account: the answer holds the account's own listing.
      const key = `listing-estimate:${auth.mode}:${auth.account_id}:${id}:${testMode}:${currency}`;
      send(
        res,
        await ctx.cache.getOrCompute({ key, perAccount: true }, auth.account_id, () =>
          listingEstimateAnswer(ctx.estimates, auth, id, { currency, testMode }),
        ),
        'account',
      );
    },
  );
}
