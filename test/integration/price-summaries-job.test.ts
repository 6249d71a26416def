// The stream worker's price-summaries job (stream/jobs/price-summaries.ts, every 10 s by default)
// prepares a group once it is quiet, and the pricing read then answers from the summary, the same
// figures as from the prices.
import { describe, expect, it } from 'vitest';
import { createPricingLag } from '../../analytics-api/services/pricing-lag.ts';
import { pricingFigures, pricingScope } from '../../analytics-api/services/pricing.ts';
import { eventually, testClickHouse } from '../support/api.ts';
import { claimYear, insertListings } from '../support/analytics-fixtures.ts';

const clickhouse = testClickHouse();

describe("the stream worker's price-summaries job", () => {
  it('happy: prepares a quiet group, whose answers then come from its summary', async () => {
    const year = await claimYear();
    const scope = pricingScope({ city: 'tanga', type: 'room', period: { year, quarter: 3 } }, false);
    const prices = [150_000, 200_000, 200_000, 260_000, 1_000_000];
    await insertListings(
      prices.map((price_tzs, i) => ({
        is_test: 0,
        listed_at: `${year}-0${7 + (i % 3)}-10 12:00:00`,
        property_type: 'room',
        price_tzs,
        city: 'tanga',
        neighbourhood: i < 3 ? 'Chumbageni' : 'Ngamiani',
      })),
    );
    const exact = await pricingFigures({ clickhouse, lag: createPricingLag() }, scope);
    expect(exact.source).toBe('prices');
    // Quiet across two of the job's runs (10 s apart), then prepared at the next.
    const prepared = await eventually(
      async () => {
        const figures = await pricingFigures({ clickhouse, lag: createPricingLag() }, scope);
        return figures.source === 'summaries' ? figures : undefined;
      },
      60_000,
      "the group's summary",
    );
    const total = prepared.prices.find((row) => row.part === 'total')!;
    expect(total).toMatchObject({
      listings: 5,
      median_price: 200_000,
      min_price: 150_000,
      max_price: 1_000_000,
    });
    expect([...prepared.prices].sort(byPart)).toEqual([...exact.prices].sort(byPart));
  }, 90_000);
});

const byPart = (a: { part: string; neighbourhood: string }, b: { part: string; neighbourhood: string }) =>
  `${a.part}/${a.neighbourhood}`.localeCompare(`${b.part}/${b.neighbourhood}`);
