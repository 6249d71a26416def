// GET /listings/{id}/estimate: the rent estimate of a stored listing for its owner, from the
// other listings (never itself, nor any listing with its fingerprint: the same unit sent again),
// and where its asking rent falls against the interval. Only the owning account, and only keys
// of the listing's mode (a live key reads its test-mode listings with test_mode=true), as
// GET /listings/{id}; anyone else gets the same 404 as for an unknown id.
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import type { Currency } from '../../common/domain/listing.ts';
import { AppError } from '../../common/errors.ts';
import { isUuid } from '../../common/ids.ts';
import type { ListingEstimateAnswer } from '../answers/estimate.ts';
import { listingSubject } from '../queries/estimate.ts';
import { estimateAnswer, type EstimateDeps } from './estimate.ts';

export async function listingEstimateAnswer(
  deps: EstimateDeps,
  auth: ApiKeyRecord,
  rawId: string,
  options: { currency: Currency; testMode: boolean },
): Promise<ListingEstimateAnswer> {
  const notFound = () => new AppError('not_found', `No listing ${rawId} in this account`);
  if (!isUuid(rawId)) throw notFound();
  const id = rawId.toLowerCase();
  const { rows } = await listingSubject.run(deps.clickhouse, { id, account: auth.account_id });
  const row = rows[0];
  const isTest = auth.mode === 'test' || options.testMode;
  if (!row || row.is_test !== (isTest ? 1 : 0)) throw notFound();
  if (!row.placed || row.latitude === null || row.longitude === null || row.price_tzs === null) {
    throw new AppError(
      'insufficient_comparables',
      'The listing has no place (no coordinates, location_id or recognised address): no comparables can be searched',
      { retriable: false, details: { listing_id: id, reason: 'no_location' } },
    );
  }
  const answer = await estimateAnswer(
    deps,
    {
      type: row.property_type,
      city: row.city ?? '',
      latitude: row.latitude,
      longitude: row.longitude,
      bedrooms: row.bedrooms,
      bathrooms: row.bathrooms,
      areaSqm: row.area_sqm,
    },
    {
      isTest,
      accountId: auth.account_id,
      currency: options.currency,
      exclude: { listingId: id, fingerprint: BigInt(row.fingerprint ?? '0') },
    },
  );
  const asking =
    options.currency === 'USD' ? Math.round((row.price_tzs / deps.usdTzs) * 100) / 100 : row.price_tzs;
  const position = asking > answer.estimate.high ? 'over' : asking < answer.estimate.low ? 'under' : 'within';
  const rentTzs = answer.estimate.rent * (options.currency === 'USD' ? deps.usdTzs : 1);
  return {
    ...answer,
    listing: {
      listing_id: id,
      asking_rent: asking,
      position,
      difference_pct: Math.round((row.price_tzs / rentTzs - 1) * 1000) / 10,
    },
  };
}
