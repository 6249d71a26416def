// Fixtures of the lifecycle analytics tests (not a test file). A test builds a known timeline in a
// year of its own (analytics-fixtures.ts claims and releases it): listings inserted straight into
// `listings` with chosen listed_at, then their status changes published to rls.listing-status.v1 as
// the ingest API would (the stream applies them: transitions, states, aggregates). Stock figures add
// up every earlier day, so each test file also owns one city and type of one mode, and claims a
// year before which that city and type hold nothing (and clears their stock-now rows, 0053).
import { randomUUID } from 'node:crypto';
import { DAY_MS, type ListingStatus, type StatusSource } from '../../common/domain/lifecycle.ts';
import { afterAll } from 'vitest';
import { api, eventually, testClickHouse } from './api.ts';
import { claimYear, insertListings, insertViews } from './analytics-fixtures.ts';
import { publish, rows } from './stream.ts';

export interface Scope {
  city: string;
  type: string;
  isTest: 0 | 1;
}

/**
 * account_area_stock (stock now, 0053) has no time column, so dropping a year's partitions cannot
 * empty it: the file that owns `scope`'s city and type clears their rows (both modes: a file's
 * test-mode noise lives there too) before it builds and after it is done.
 */
async function clearStock(scope: Scope): Promise<void> {
  await testClickHouse().command({
    query: `ALTER TABLE account_area_stock DELETE WHERE city = {city:String} AND property_type = {type:String}`,
    query_params: { city: scope.city, type: scope.type },
    clickhouse_settings: { mutations_sync: '2' },
  });
}

/** A year (or `span` years from it) with nothing of `scope` in or before them (stock starts at zero). */
const ownedScopes: Scope[] = [];
afterAll(async () => {
  for (const scope of ownedScopes.splice(0)) await clearStock(scope);
});

export async function claimLifecycleYear(scope: Scope, span = 1): Promise<number> {
  await clearStock(scope);
  ownedScopes.push(scope);
  // Both modes: a file's test-mode noise (its test key's listings) adds up over the earlier days too,
  // so a year after an earlier run's test-mode stock would count that run's accounts in the market.
  return claimYear(async (year) => {
    const [row] = await rows<{ n: string }>(
      `SELECT
         (SELECT count() FROM market_daily_flows WHERE city = {city:String}
            AND property_type = {type:String} AND day < {until:Date}) +
         (SELECT count() FROM account_quarter_flows WHERE city = {city:String}
            AND property_type = {type:String} AND quarter < {until:Date}) AS n`,
      { city: scope.city, type: scope.type, until: `${year + 1}-01-01` },
    );
    return Number(row?.n) === 0;
  }, span);
}

export interface Change {
  status: ListingStatus;
  at: string;
  source?: StatusSource;
  rent_agreed?: number;
}

export interface TimelineListing {
  id?: string;
  account?: string;
  neighbourhood: string;
  listed_at: string;
  price?: number;
  bedrooms?: number;
  type?: string;
  city?: string;
  isTest?: 0 | 1;
  changes?: Change[];
}

const iso = (text: string) => new Date(`${text.replace(' ', 'T')}Z`).toISOString();

/**
 * Stores the listings, then publishes their changes (one message per listing and source, in
 * order) and waits until the stream recorded `expectedChanges` rows for the accounts involved.
 */
export async function buildTimeline(
  scope: Scope,
  listings: TimelineListing[],
  expectedChanges: number,
): Promise<string[]> {
  const withIds = listings.map((l) => ({
    ...l,
    id: l.id ?? randomUUID(),
    account: l.account ?? 'lifecycle-test',
  }));
  await insertListings(
    withIds.map((l) => ({
      listing_id: l.id,
      account_id: l.account,
      is_test: l.isTest ?? scope.isTest,
      listed_at: l.listed_at,
      property_type: l.type ?? scope.type,
      price_tzs: l.price ?? 500_000,
      city: l.city ?? scope.city,
      neighbourhood: l.neighbourhood,
      bedrooms: l.bedrooms,
    })),
  );
  const messages = withIds.flatMap((l) => {
    const groups: { source: StatusSource; items: Change[] }[] = [];
    for (const change of l.changes ?? []) {
      const source = change.source ?? 'api';
      if (groups.at(-1)?.source === source) groups.at(-1)!.items.push(change);
      else groups.push({ source, items: [change] });
    }
    return groups.map((g) => ({
      key: l.account,
      value: JSON.stringify({
        v: 1,
        kind: 'status',
        source: g.source,
        account_id: l.account,
        is_test: (l.isTest ?? scope.isTest) === 1,
        received_at: new Date().toISOString(),
        items: g.items.map((c) => ({
          listing_id: l.id,
          status: c.status,
          at: iso(c.at),
          ...(c.rent_agreed ? { rent_agreed: c.rent_agreed } : {}),
        })),
      }),
    }));
  });
  if (messages.length) await publish('rls.listing-status.v1', messages);
  const accounts = [...new Set(withIds.map((l) => l.account))];
  const stored = (where: string, params: Record<string, unknown>, n: number) =>
    eventually(
      async () => {
        const [row] = await rows<{ n: string }>(
          `SELECT count() AS n FROM listing_status_changes WHERE ${where}`,
          params,
        );
        return Number(row?.n) >= n ? true : undefined;
      },
      30_000,
      `${n} status changes stored`,
    );
  await stored('account_id IN {accounts:Array(String)}', { accounts }, expectedChanges);
  // Rows show up before the materialized views of their insert have run. The stream's writer inserts
  // one batch after another, so once a later change is stored, every view of the earlier ones is.
  // The marker lives in the timeline's own year (released with it), in another city and type.
  const markerAt = new Date(`${withIds[0]!.listed_at.replace(' ', 'T')}Z`);
  const [marker] = await insertListings([
    {
      account_id: 'lifecycle-marker',
      is_test: 0,
      listed_at: markerAt.toISOString(),
      property_type: 'land',
      price_tzs: 1,
      city: 'zanzibar',
      neighbourhood: '',
    },
  ]);
  await publish('rls.listing-status.v1', [
    {
      key: 'lifecycle-marker',
      value: JSON.stringify({
        v: 1,
        kind: 'status',
        source: 'api',
        account_id: 'lifecycle-marker',
        is_test: false,
        received_at: new Date().toISOString(),
        items: [
          {
            listing_id: marker,
            status: 'under_contract',
            at: new Date(markerAt.getTime() + 1000).toISOString(),
          },
        ],
      }),
    },
  ]);
  await stored('listing_id = {marker:UUID}', { marker }, 1);
  return withIds.map((l) => l.id);
}

export { insertViews };

/** GET an analytics path and return the body (200 expected). */
export async function analytics(key: string, path: string) {
  const res = await api('GET', `/api/v1/analytics/${path}`, { key });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Days (YYYY-MM-DD, UTC) of [from, to] inclusive. */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/** Whole UTC days from `from` (YYYY-MM-DD) to today. */
export function daysSince(from: string): number {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  return Math.round((today - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}
