// POST /listings/status and GET /listings/{id} end to end: API → Kafka → stream → ClickHouse
// (history rows, current state, v_current_listings). Each test uses fresh accounts.
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../common/clients/clickhouse.ts';
import { api, createTestKey, eventually, testClickHouse } from '../support/api.ts';
import {
  daysAgo,
  historyOf,
  isoSeconds,
  postStatus,
  pushListings,
  waitForStatus,
} from '../support/lifecycle.ts';
import { publish } from '../support/stream.ts';
import { setTimeout as sleep } from 'node:timers/promises';

const DAY = 86_400_000;

describe('listing status (happy)', () => {
  it('applies rented (by external_id, with rent) and withdrawn (by id) through the stream', async () => {
    const { key } = await createTestKey();
    const listedAt = daysAgo(10);
    const [rentedId, withdrawnId] = await pushListings(key, [
      { external_id: 'unit-7', listed_at: listedAt },
      { listed_at: listedAt },
    ]);
    const rentedAt = daysAgo(2, 5); // 7 days 19 h after listing → 7 whole days on market
    const res = await postStatus(key, [
      { external_id: 'unit-7', status: 'rented', at: rentedAt, rent_agreed: 400, currency: 'USD' },
      { listing_id: withdrawnId, status: 'withdrawn' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      summary: { total: 2, succeeded: 2, failed: 0 },
      results: [
        { index: 0, success: true, listing_id: rentedId, status: 'rented' },
        { index: 1, success: true, listing_id: withdrawnId, status: 'withdrawn' },
      ],
    });

    const listing = await waitForStatus(key, rentedId!, 'rented');
    expect(listing).toMatchObject({
      listing_id: rentedId,
      external_id: 'unit-7',
      status: 'rented',
      status_at: rentedAt,
      listed_at: isoSeconds(listedAt),
      test_mode: false,
    });
    await waitForStatus(key, withdrawnId!, 'withdrawn');
    expect(await historyOf(rentedId!)).toEqual([
      {
        status: 'rented',
        previous_status: 'active',
        transition: 'exit',
        source: 'api',
        changed_at: isoSeconds(rentedAt),
        spell_started_at: isoSeconds(listedAt),
        exited_at: isoSeconds(rentedAt),
        exit_days: 7,
        rent_agreed: 400,
        rent_currency: 'USD',
        rent_agreed_tzs: 1_000_000, // FX_USD_TZS default 2,500
        version: 1,
      },
    ]);
    const [view] = await queryRows<{ status: string }>(
      testClickHouse(),
      'SELECT toString(status) AS status FROM v_current_listings WHERE listing_id = {id:UUID}',
      { id: rentedId },
    );
    expect(view?.status).toBe('rented');
  });

  it('is idempotent: a repeated status adds no history row; Idempotency-Key replays the answer', async () => {
    const { key } = await createTestKey();
    const [id] = await pushListings(key, [{ listed_at: daysAgo(3) }]);
    const body = { updates: [{ listing_id: id, status: 'under_contract', at: daysAgo(1) }] };
    const first = await api('POST', '/api/v1/listings/status', {
      key,
      body,
      headers: { 'Idempotency-Key': `k-${id}` },
    });
    const replay = await api('POST', '/api/v1/listings/status', {
      key,
      body,
      headers: { 'Idempotency-Key': `k-${id}` },
    });
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    await waitForStatus(key, id!, 'under_contract');
    // The same status again, without a key: accepted, but nothing changes.
    expect((await postStatus(key, [{ listing_id: id, status: 'under_contract' }])).status).toBe(200);
    const marker = await postStatus(key, [{ listing_id: id, status: 'active' }]);
    expect(marker.status).toBe(200);
    await waitForStatus(key, id!, 'active');
    expect((await historyOf(id!)).map((h) => [h.previous_status, h.status, h.transition])).toEqual([
      ['active', 'under_contract', 'none'],
      ['under_contract', 'active', 'none'],
    ]);
  });

  it('continues days on market when a listing returns within 30 days, restarts them after', async () => {
    const { key } = await createTestKey();
    const start = Date.parse(daysAgo(100));
    const at = (day: number) => new Date(start + day * DAY).toISOString();
    const [quick, late] = await pushListings(key, [{ listed_at: at(0) }, { listed_at: at(0) }]);
    // quick: withdrawn on day 10, back on day 30 (20 days later), rented on day 50.
    // late: withdrawn on day 10, back on day 45 (35 days later: a new spell), rented on day 50.
    expect(
      (
        await postStatus(key, [
          { listing_id: quick, status: 'withdrawn', at: at(10) },
          { listing_id: quick, status: 'active', at: at(30) },
          { listing_id: quick, status: 'rented', at: at(50) },
          { listing_id: late, status: 'withdrawn', at: at(10) },
          { listing_id: late, status: 'active', at: at(45) },
          { listing_id: late, status: 'rented', at: at(50) },
        ])
      ).body.summary,
    ).toEqual({ total: 6, succeeded: 6, failed: 0 });
    await waitForStatus(key, quick!, 'rented');
    await waitForStatus(key, late!, 'rented');
    const summary = (rows: Awaited<ReturnType<typeof historyOf>>) =>
      rows.map((r) => [r.transition, r.exit_days, r.spell_started_at]);
    expect(summary(await historyOf(quick!))).toEqual([
      ['exit', 10, isoSeconds(at(0))],
      ['return', 10, isoSeconds(at(0))], // the exit it undoes
      ['exit', 50, isoSeconds(at(0))], // 50 days from the original listing date
    ]);
    expect(summary(await historyOf(late!))).toEqual([
      ['exit', 10, isoSeconds(at(0))],
      ['relist', 0, isoSeconds(at(45))],
      ['exit', 5, isoSeconds(at(45))],
    ]);
  });

  it('reads a listing with its images and their checks (null until checked)', async () => {
    const { key } = await createTestKey();
    const [id] = await pushListings(key, [{ images: ['https://images.invalid/a.jpg'] }]);
    const res = await api('GET', `/api/v1/listings/${id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('active');
    expect(res.body.images).toHaveLength(1);
    expect(res.body.images[0]).toMatchObject({
      url: 'https://images.invalid/a.jpg',
      width: null,
      height: null,
      tags: [],
      image_of: null,
      reused_photo: false,
    });
    expect(typeof res.body.images[0].checked).toBe('boolean');
  });
});

describe('listing status (errors)', () => {
  it('reports every error per update, and 400 all_listings_failed when none succeeded', async () => {
    const { key } = await createTestKey();
    const listedAt = daysAgo(5);
    const [id] = await pushListings(key, [{ listed_at: listedAt }]);
    const res = await postStatus(key, [
      { listing_id: id, status: 'rented', at: daysAgo(6) },
      { listing_id: id, status: 'rented', at: new Date(Date.now() + DAY).toISOString() },
      { listing_id: id, status: 'expired' },
      { listing_id: id, external_id: 'x', status: 'withdrawn' },
      { status: 'withdrawn' },
      { listing_id: id, status: 'withdrawn', rent_agreed: 5 },
      { listing_id: id, status: 'rented', currency: 'USD' },
      'nope',
    ]);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('all_listings_failed');
    const codes = res.body.error.details.results.map((r: { errors: { field: string; code: string }[] }) =>
      r.errors.map((e) => `${e.field}:${e.code}`),
    );
    expect(codes).toEqual([
      ['at:before_listed_at'],
      ['at:in_future'],
      ['status:invalid_enum'],
      ['external_id:conflicting_fields'],
      ['listing_id:required'],
      ['rent_agreed:not_allowed'],
      ['currency:not_allowed'],
      [':invalid_type'],
    ]);
    expect(res.body.error.details.summary).toEqual({ total: 8, succeeded: 0, failed: 8 });
  });

  it('refuses a change dated before the last stored change, and more than 100 updates', async () => {
    const { key } = await createTestKey();
    const [id] = await pushListings(key, [{ listed_at: daysAgo(20) }]);
    await postStatus(key, [{ listing_id: id, status: 'under_contract', at: daysAgo(5) }]);
    await waitForStatus(key, id!, 'under_contract');
    const late = await postStatus(key, [{ listing_id: id, status: 'rented', at: daysAgo(6) }]);
    expect(late.status).toBe(400);
    expect(late.body.error.details.results[0].errors[0].code).toBe('before_last_change');
    const many = await postStatus(
      key,
      Array.from({ length: 101 }, () => ({ listing_id: id, status: 'rented' })),
    );
    expect(many.status).toBe(400);
    expect(many.body.error.code).toBe('too_many_listings');
    const empty = await api('POST', '/api/v1/listings/status', { key, body: { updates: [] } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('validation_failed');
  });
});

describe('listing status (stream)', () => {
  it('quarantines an item dated before the stored change, or for a listing of another account', async () => {
    const owner = await createTestKey();
    const [id] = await pushListings(owner.key, [{ listed_at: daysAgo(20) }]);
    await postStatus(owner.key, [{ listing_id: id, status: 'under_contract', at: daysAgo(2) }]);
    await waitForStatus(owner.key, id!, 'under_contract');
    // What a producer writing to Kafka directly could send: an older change, and someone else's listing.
    const message = (account: string, at: string) => ({
      key: account,
      value: JSON.stringify({
        v: 1,
        kind: 'status',
        source: 'api',
        account_id: account,
        is_test: false,
        received_at: new Date().toISOString(),
        items: [{ listing_id: id, status: 'rented', at }],
      }),
    });
    const stranger = `stranger-${id}`;
    await publish('rls.listing-status.v1', [
      message(owner.account_id, daysAgo(5)),
      message(stranger, daysAgo(1)),
    ]);
    const errors = await eventually(
      async () => {
        const found = await queryRows<{ error: string }>(
          testClickHouse(),
          `SELECT error FROM quarantine WHERE source = 'status' AND position(payload, {id:String}) > 0 ORDER BY error`,
          { id },
        );
        return found.length >= 2 ? found.map((r) => r.error) : undefined;
      },
      20_000,
      'two quarantined status items',
    );
    expect(errors[0]).toMatch(/is before the listing's last status change/);
    expect(errors[1]).toBe('unknown listing for this account and mode');
    expect((await historyOf(id!)).map((h) => h.status)).toEqual(['under_contract']);
  });
});

describe('listing status (security)', () => {
  it("treats another account's listing, and the other mode's, as not found", async () => {
    const owner = await createTestKey();
    const stranger = await createTestKey();
    const [id] = await pushListings(owner.key, [{ external_id: 'shared-ref' }]);
    const byId = await postStatus(stranger.key, [{ listing_id: id, status: 'withdrawn' }]);
    expect(byId.status).toBe(400);
    expect(byId.body.error.details.results[0].errors[0].code).toBe('not_found');
    // The same external_id in another account is another listing (which does not exist).
    const byRef = await postStatus(stranger.key, [{ external_id: 'shared-ref', status: 'withdrawn' }]);
    expect(byRef.body.error.details.results[0].errors[0].code).toBe('not_found');
    expect((await api('GET', `/api/v1/listings/${id}`, { key: stranger.key })).status).toBe(404);
    // The owner's test key does not reach its live listings, in either endpoint.
    const testKey = await createTestKey({ accountId: owner.account_id, mode: 'test' });
    const fromTest = await postStatus(testKey.key, [{ listing_id: id, status: 'withdrawn' }]);
    expect(fromTest.body.error.details.results[0].errors[0].code).toBe('not_found');
    expect((await api('GET', `/api/v1/listings/${id}`, { key: testKey.key })).status).toBe(404);
    // Nothing was applied.
    await sleep(1_000);
    expect(await historyOf(id!)).toEqual([]);
    expect((await api('GET', `/api/v1/listings/${id}`, { key: owner.key })).body.status).toBe('active');
  });

  it('keeps test-mode listings apart: a live key addresses them only with test_mode', async () => {
    const live = await createTestKey();
    const [id] = await pushListings(live.key, [{}], { test_mode: true });
    const plain = await postStatus(live.key, [{ listing_id: id, status: 'withdrawn' }]);
    expect(plain.body.error.details.results[0].errors[0].code).toBe('not_found');
    const flagged = await postStatus(live.key, [{ listing_id: id, status: 'withdrawn' }], {
      test_mode: true,
    });
    expect(flagged.status).toBe(200);
    await waitForStatus(live.key, id!, 'withdrawn', '?test_mode=true');
    expect((await api('GET', `/api/v1/listings/${id}`, { key: live.key })).status).toBe(404);
  });

  it('needs a key, and answers unknown or malformed ids with 404', async () => {
    const { key } = await createTestKey({ tier: 'free' }); // listings:write is in every tier
    expect((await api('POST', '/api/v1/listings/status', { body: { updates: [] } })).status).toBe(401);
    expect((await api('GET', '/api/v1/listings/00000000-0000-4000-8000-000000000000', { key })).status).toBe(
      404,
    );
    expect((await api('GET', "/api/v1/listings/1'%20OR%201=1", { key })).status).toBe(404);
    const doc = await api('GET', '/api/v1/openapi.json');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/listings/status', '/listings/{listing_id}']),
    );
    // The listings router's own paths still win over /listings/{id}.
    expect((await api('GET', '/api/v1/listings/bulk', { key })).status).toBe(200);
  });
});
