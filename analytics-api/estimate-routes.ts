// The rent estimate routes (docs/analytics.md, "Rent estimates"): a point's estimate (contract)
// and a stored listing's for its owner. Same key rules, tier permission, cache and error shape as
// pricing; the numbers come from services/estimate.ts.
import { z } from 'zod';
import type { Route } from '../common/http/route.ts';
import { estimateAnswerSchema, listingEstimateAnswerSchema } from './answers/estimate.ts';
import { cachedAnswerRoute, tiers, type AnalyticsDeps } from './cached-answer-route.ts';
import {
  estimateQuery,
  listingEstimateQuery,
  parseEstimateParams,
  parseListingEstimateParams,
} from './estimate-params.ts';
import { searchCentre } from '../common/estimate/search-centre.ts';
import { pointEstimateAnswer } from './services/estimate.ts';
import { listingEstimateAnswer } from './services/listing-estimate.ts';

const pointEstimate = cachedAnswerRoute({
  path: '/analytics/estimate',
  cacheScope: 'account',
  operationId: 'getRentEstimate',
  summary: 'Asking-rent estimate for a unit at a point, with its comparables and measured accuracy',
  description:
    'Searched from the centre of the point’s resolution-8 H3 cell (subject.search_center): every ' +
    'point of a cell gets the same answer. Comparables of the same type and mode (±1 bedroom, ' +
    'floor area within 1.5×), nearest first, widening 1 → 2 → 5 → 10 km over 90, then 365 days ' +
    'until 5 are found; 422 insufficient_comparables (details.searched) when none holds 5. ' +
    'Other accounts’ comparables carry no listing_id and only the band of their distance ' +
    '(distance_band 0-1, 1-2, 2-5 or 5-10 km; distance_km its upper bound); your own carry their ' +
    'id and distance. Each account and mode may ask a limited number of distinct cells per UTC ' +
    'day (business 200, enterprise 1,000; the same cell again is free): past it, 429 ' +
    `quota_exceeded (details.quota estimate_cells_per_day). ${tiers} See docs/analytics.md.`,
  query: { schema: estimateQuery, parse: parseEstimateParams },
  answer: { description: 'Estimate', schema: estimateAnswerSchema },
  errors: [400, 422, 503],
  async answerWith({ auth: caller, query: p }, { ctx, estimateQuota }) {
    const { mode, account_id: account } = caller;
    // The answer is the cell's (searched from its centre): counted, and cached, by cell.
    const cell = searchCentre(p.latitude, p.longitude).h3Index;
    await estimateQuota.reserveCell(caller, cell);
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
    return { ...answer, value };
  },
});

const listingEstimate = cachedAnswerRoute({
  path: '/listings/{listing_id}/estimate',
  cacheScope: 'account',
  operationId: 'getListingRentEstimate',
  summary: 'The rent estimate of one of your listings, and whether its asking rent is over, within or under',
  description:
    'From the other listings only (never the listing itself nor any listing with its fingerprint), ' +
    'searched from the listing’s position; other accounts’ comparables as distance bands. ' +
    `Owning account only (others get 404), keys of the listing's mode (test_mode=true for a live key's test listings). ${tiers}`,
  parameters: [{ name: 'listing_id', in: 'path', schema: z.string() }],
  query: { schema: listingEstimateQuery, parse: parseListingEstimateParams },
  answer: { description: 'Estimate', schema: listingEstimateAnswerSchema },
  errors: [400, 404, 422, 503],
  answerWith({ auth, params, query: { currency, testMode } }, { ctx }) {
    const id = params.listing_id!.toLowerCase();
    // Per account: the answer holds the account's own listing.
    const key = `listing-estimate:${auth.mode}:${auth.account_id}:${id}:${testMode}:${currency}`;
    return ctx.cache.getOrCompute({ key, perAccount: true }, auth.account_id, () =>
      listingEstimateAnswer(ctx.estimates, auth, id, { currency, testMode }),
    );
  },
});

export const estimateRoutes: Route<AnalyticsDeps>[] = [pointEstimate, listingEstimate];
