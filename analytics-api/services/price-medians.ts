// Exact price statistics of one city, type and quarter from the price buckets (migration 0110), per
// neighbourhood and for the whole city. A bucket's prices are all above the lower buckets' prices,
// so the bucket counts say which bucket holds the k-th cheapest listing and its rank there; only
// those buckets' exact prices are read. The median is the mean of the ⌈n/2⌉-th and (⌊n/2⌋ + 1)-th
// listing in price order (the middle one twice for odd n): the same elements as the
// quantilesExactWeighted levels of queries/pricing.ts's exactMedian.
import type { ClickHouseClient } from '@clickhouse/client';
import { bucketPrices, priceBuckets } from '../queries/pricing.ts';

export interface PriceStats {
  neighbourhood: string;
  listings: number;
  median_price: number | null;
  avg_price: number | null;
  min_price: number | null;
  max_price: number | null;
}

type BucketRow = [
  neighbourhood: string,
  bucket: number,
  listings: number,
  priceSum: number,
  min: number,
  max: number,
];
type PriceRow = [neighbourhood: string, bucket: number, price: number, listings: number];

interface Group {
  listings: number;
  priceSum: number;
  min: number;
  max: number;
  /** Listings per bucket. */
  buckets: Map<number, number>;
}

/** Where the listing of 1-based `rank` in price order lies: its bucket and its rank within it. */
interface Position {
  bucket: number;
  rank: number;
}

/** The neighbourhood's middle listings (the city's: `city` = true) and the prices they read. */
interface Middle {
  neighbourhood: string;
  city: boolean;
  positions: [Position, Position];
}

const newGroup = (): Group => ({
  listings: 0,
  priceSum: 0,
  min: Infinity,
  max: -Infinity,
  buckets: new Map(),
});

function add(group: Group, [, bucket, listings, priceSum, min, max]: BucketRow) {
  group.listings += listings;
  group.priceSum += priceSum;
  group.min = Math.min(group.min, min);
  group.max = Math.max(group.max, max);
  group.buckets.set(bucket, (group.buckets.get(bucket) ?? 0) + listings);
}

function locate(group: Group, rank: number): Position {
  let below = 0;
  for (const bucket of [...group.buckets.keys()].sort((a, b) => a - b)) {
    const here = group.buckets.get(bucket)!;
    if (below + here >= rank) return { bucket, rank: rank - below };
    below += here;
  }
  throw new Error(`rank ${rank} beyond ${below} listings`);
}

const middleOf = (group: Group): [Position, Position] => [
  locate(group, Math.ceil(group.listings / 2)),
  locate(group, Math.floor(group.listings / 2) + 1),
];

/** The price of the listing of `rank` among (price, listings) rows, in price order. */
function priceAt(rows: PriceRow[], rank: number): number {
  const sorted = [...rows].sort((a, b) => a[2] - b[2]);
  let seen = 0;
  for (const [, , price, listings] of sorted) {
    seen += listings;
    if (seen >= rank) return price;
  }
  throw new Error(`rank ${rank} beyond ${seen} listings of a bucket`);
}

/** Groups the bucket rows, and says which (neighbourhood, bucket) pairs hold the middle listings. */
export function planMedians(rows: BucketRow[], withCity: boolean) {
  const groups = new Map<string, Group>();
  const city = newGroup();
  for (const row of rows) {
    if (!groups.has(row[0])) groups.set(row[0], newGroup());
    add(groups.get(row[0])!, row);
    add(city, row);
  }
  const middles: Middle[] = [...groups].map(([neighbourhood, group]) => ({
    neighbourhood,
    city: false,
    positions: middleOf(group),
  }));
  if (withCity && city.listings > 0)
    middles.push({ neighbourhood: '', city: true, positions: middleOf(city) });
  const pairs = new Map<string, { neighbourhood: string; bucket: number }>();
  for (const middle of middles) {
    for (const { bucket } of middle.positions) {
      const holders = middle.city
        ? [...groups].filter(([, g]) => g.buckets.has(bucket)).map(([n]) => n)
        : [middle.neighbourhood];
      for (const neighbourhood of holders)
        pairs.set(`${bucket}\u0000${neighbourhood}`, { neighbourhood, bucket });
    }
  }
  return { groups, city, middles, pairs: [...pairs.values()] };
}

const statsOf = (neighbourhood: string, group: Group, median: number | null): PriceStats => ({
  neighbourhood,
  listings: group.listings,
  median_price: median,
  avg_price: group.listings > 0 ? group.priceSum / group.listings : null,
  min_price: group.listings > 0 ? group.min : null,
  max_price: group.listings > 0 ? group.max : null,
});

/** Per-neighbourhood statistics and, with `withCity`, the whole city's, from the two reads. */
export function priceStatsOf(plan: ReturnType<typeof planMedians>, prices: PriceRow[]) {
  const median = (middle: Middle) => {
    const [lower, upper] = middle.positions.map(({ bucket, rank }) =>
      priceAt(
        prices.filter((row) => row[1] === bucket && (middle.city || row[0] === middle.neighbourhood)),
        rank,
      ),
    );
    return (lower! + upper!) / 2;
  };
  const medians = new Map(plan.middles.filter((m) => !m.city).map((m) => [m.neighbourhood, median(m)]));
  const cityMiddle = plan.middles.find((m) => m.city);
  return {
    rows: [...plan.groups].map(([neighbourhood, group]) =>
      statsOf(neighbourhood, group, medians.get(neighbourhood) ?? null),
    ),
    totals: statsOf('', plan.city, cityMiddle ? median(cityMiddle) : null),
  };
}

/** Listings and exact price statistics of one city, type and quarter: two reads, one after the other. */
export async function quarterPriceStats(
  clickhouse: ClickHouseClient,
  scope: Parameters<typeof priceBuckets.run>[1],
  withCity: boolean,
) {
  const buckets = await priceBuckets.run(clickhouse, scope);
  const plan = planMedians(buckets.rows, withCity);
  const prices = plan.pairs.length
    ? (await bucketPrices.run(clickhouse, { ...scope, pairs: plan.pairs })).rows
    : [];
  return priceStatsOf(plan, prices);
}
