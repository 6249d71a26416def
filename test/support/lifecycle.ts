// Helpers of the lifecycle tests (not a test file): push listings through the real API and wait
// until they are stored, post status updates, wait for the stream to apply them, read the history.
import { expect } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { api, batchCompleted, eventually, sampleListing, testClickHouse } from './api.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';

/** An ISO instant `days` days (and `hours` hours) before now, whole seconds. */
export function daysAgo(days: number, hours = 0): string {
  return new Date(Math.floor((Date.now() - days * DAY_MS - hours * 3_600_000) / 1000) * 1000).toISOString();
}

/** Creates listings (overrides per listing) and waits for their batch; returns their ids. */
export async function pushListings(
  key: string,
  overrides: Record<string, unknown>[],
  extra: { test_mode?: boolean } = {},
): Promise<string[]> {
  const res = await api('POST', '/api/v1/listings/bulk', {
    key,
    body: { listings: overrides.map((o) => sampleListing(o)), ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await batchCompleted(key, res.body.batch_id);
  // The state rows come from materialized views of the same insert; wait until they are readable.
  const ids = res.body.results.map((r: { listing_id: string }) => r.listing_id);
  await eventually(
    async () => ((await stateCount(ids)) === ids.length ? true : undefined),
    10_000,
    'listing states',
  );
  return ids;
}

async function stateCount(ids: string[]): Promise<number> {
  const [row] = await queryRows<{ n: string }>(
    testClickHouse(),
    'SELECT count() AS n FROM listing_states FINAL WHERE listing_id IN {ids:Array(UUID)}',
    { ids },
  );
  return Number(row?.n ?? 0);
}

export async function postStatus(key: string, updates: unknown[], extra: object = {}) {
  return api('POST', '/api/v1/listings/status', { key, body: { updates, ...extra } });
}

/** Waits until GET /listings/{id} shows `status` (the stream applied the change). */
export async function waitForStatus(key: string, listingId: string, status: string, query = '') {
  return eventually(
    async () => {
      const res = await api('GET', `/api/v1/listings/${listingId}${query}`, { key });
      return res.status === 200 && res.body.status === status ? res.body : undefined;
    },
    20_000,
    `listing ${listingId} ${status}`,
  );
}

export interface HistoryRow {
  status: string;
  previous_status: string;
  transition: string;
  source: string;
  changed_at: string;
  spell_started_at: string;
  exited_at: string;
  exit_days: number;
  rent_agreed: number | null;
  rent_currency: string | null;
  rent_agreed_tzs: number | null;
  version: number;
}

export async function historyOf(listingId: string): Promise<HistoryRow[]> {
  const rows = await queryRows<HistoryRow>(
    testClickHouse(),
    `SELECT toString(status) AS status, toString(previous_status) AS previous_status,
            toString(transition) AS transition, toString(source) AS source,
            formatDateTime(changed_at, '%Y-%m-%dT%H:%i:%SZ') AS changed_at,
            formatDateTime(spell_started_at, '%Y-%m-%dT%H:%i:%SZ') AS spell_started_at,
            formatDateTime(exited_at, '%Y-%m-%dT%H:%i:%SZ') AS exited_at, exit_days, rent_agreed,
            toString(rent_currency) AS rent_currency, rent_agreed_tzs, version
     FROM listing_status_changes WHERE listing_id = {id:UUID} ORDER BY version`,
    { id: listingId },
  );
  return rows.map((r) => ({ ...r, exit_days: Number(r.exit_days), version: Number(r.version) }));
}

/** `2025-01-31T09:00:00.000Z` → `2025-01-31T09:00:00Z` (how the history query prints instants). */
export const isoSeconds = (iso: string) => iso.replace(/\.\d{3}Z$/, 'Z');
