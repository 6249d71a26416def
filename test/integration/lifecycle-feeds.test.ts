// How feeds take listings off the market besides explicit status changes: complete snapshots (with
// the 30 % guard), expiry after 60 days without a re-send or change, and re-sends that bring a
// listing back (a return within 30 days keeps its days on market, a relist after). Real stack.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { listingIdFor } from '../../ingest/listings/fingerprint.ts';
import { runExpiry } from '../../stream/lifecycle/expiry.ts';
import { api, createTestKey, sampleListing, testClickHouse } from '../support/api.ts';
import { insertListings } from '../support/analytics-fixtures.ts';
import {
  daysAgo,
  historyOf,
  isoSeconds,
  postStatus,
  pushListings,
  waitForStatus,
} from '../support/lifecycle.ts';
import { listingMessage, publish } from '../support/stream.ts';
import { DAY_MS } from '../../common/domain/lifecycle.ts';
import { setTimeout as sleep } from 'node:timers/promises';

async function snapshot(key: string, body: object) {
  return api('POST', '/api/v1/listings/snapshots', { key, body });
}

describe('snapshots', () => {
  it('happy: withdraws what a complete snapshot leaves out; exactly 30 % of the stock is not held', async () => {
    const { key } = await createTestKey();
    const refs = Array.from({ length: 9 }, (_, i) => `e${i + 1}`);
    const ids = await pushListings(key, [...refs.map((external_id) => ({ external_id })), {}]);
    const part1 = await snapshot(key, {
      snapshot_id: 'feed-1',
      part: 1,
      parts: 2,
      external_ids: ['e1', 'e2', 'e3'],
    });
    expect(part1.status).toBe(202);
    expect(part1.body).toMatchObject({
      snapshot_id: 'feed-1',
      status: 'collecting',
      parts: 2,
      parts_received: [1],
    });
    // A part sent again counts once.
    const again = await snapshot(key, {
      snapshot_id: 'feed-1',
      part: 1,
      parts: 2,
      external_ids: ['e1', 'e2', 'e3'],
    });
    expect(again.body.parts_received).toEqual([1]);
    const part2 = await snapshot(key, {
      snapshot_id: 'feed-1',
      part: 2,
      parts: 2,
      external_ids: ['e4', 'e5', 'e6'],
    });
    // Stock 10 (9 with an external_id, 1 without); e7–e9 are left out: 3 of 10 = 30 %, not above it.
    expect(part2.body).toMatchObject({ status: 'applied', active: 10, withdrawn: 3, external_ids: 6 });
    for (const i of [6, 7, 8]) await waitForStatus(key, ids[i]!, 'withdrawn');
    const [row] = await historyOf(ids[6]!);
    expect(row).toMatchObject({
      source: 'snapshot',
      transition: 'exit',
      changed_at: isoSeconds(part2.body.completed_at),
    });
    for (const i of [0, 5, 9]) {
      expect((await api('GET', `/api/v1/listings/${ids[i]}`, { key })).body.status).toBe('active');
    }
  });

  it('holds a snapshot that would withdraw more than 30 % until it is confirmed (guard)', async () => {
    const { key } = await createTestKey();
    const ids = await pushListings(
      key,
      ['a', 'b', 'c', 'd', 'e', 'f'].map((external_id) => ({ external_id })),
    );
    // A truncated file: only a and b. 4 of 6 = 67 %.
    const truncated = await snapshot(key, {
      snapshot_id: 'nightly',
      part: 1,
      parts: 1,
      external_ids: ['a', 'b'],
    });
    expect(truncated.body).toMatchObject({ status: 'held', active: 6, withdrawn: 4 });
    await sleep(1_500);
    expect((await api('GET', `/api/v1/listings/${ids[2]}`, { key })).body.status).toBe('active');
    const read = await api('GET', '/api/v1/listings/snapshots/nightly', { key });
    expect(read.body.status).toBe('held');
    const confirmed = await api('POST', '/api/v1/listings/snapshots/nightly/confirm', { key });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toMatchObject({ status: 'applied', withdrawn: 4 });
    expect(confirmed.body.confirmed_at).toBeTruthy();
    for (const i of [2, 3, 4, 5]) await waitForStatus(key, ids[i]!, 'withdrawn');
    expect((await api('GET', `/api/v1/listings/${ids[0]}`, { key })).body.status).toBe('active');
    // Confirming again changes nothing.
    expect((await api('POST', '/api/v1/listings/snapshots/nightly/confirm', { key })).body.status).toBe(
      'applied',
    );
  });

  it('error, security: refuses inconsistent parts and hides snapshots from other accounts', async () => {
    const owner = await createTestKey();
    const stranger = await createTestKey();
    await snapshot(owner.key, { snapshot_id: 's', part: 1, parts: 3, external_ids: ['x'] });
    const mismatch = await snapshot(owner.key, { snapshot_id: 's', part: 2, parts: 2, external_ids: [] });
    expect(mismatch.status).toBe(400);
    const bad = await snapshot(owner.key, {
      snapshot_id: 'bad id!',
      part: 1,
      parts: 2,
      external_ids: ['ok', 'no spaces'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      'external_ids.1',
      'snapshot_id',
    ]);
    const beyond = await snapshot(owner.key, { snapshot_id: 't', part: 3, parts: 2, external_ids: [] });
    expect(beyond.body.error.details).toEqual([expect.objectContaining({ field: 'part' })]);
    expect((await api('GET', '/api/v1/listings/snapshots/s', { key: stranger.key })).status).toBe(404);
    expect((await api('POST', '/api/v1/listings/snapshots/s/confirm', { key: stranger.key })).status).toBe(
      404,
    );
    expect((await api('POST', '/api/v1/listings/snapshots/s/confirm', { key: owner.key })).status).toBe(400);
  });
});

describe('expiry', () => {
  it('happy: expires listings neither re-sent nor changed for 60 days, at the day they expired', async () => {
    const account = `expiry-${randomUUID()}`;
    const stale = daysAgo(70);
    const fresh = daysAgo(50);
    const [staleId, freshId] = await insertListings(
      [stale, fresh].map((at) => ({
        account_id: account,
        is_test: 0,
        listed_at: at,
        property_type: 'room',
        price_tzs: 100_000,
        city: 'dodoma',
        neighbourhood: 'Makole',
      })),
    );
    const due = await runExpiry({
      clickhouse: testClickHouse(),
      accountId: account,
      publish: async (message) => {
        await publish('rls.listing-status.v1', [{ key: message.account_id, value: JSON.stringify(message) }]);
      },
    });
    expect(due).toBe(1);
    let rows: Awaited<ReturnType<typeof historyOf>> = [];
    for (let i = 0; i < 100 && rows.length === 0; i++) {
      await sleep(200);
      rows = await historyOf(staleId!);
    }
    expect(rows).toEqual([
      expect.objectContaining({
        status: 'expired',
        source: 'expiry',
        transition: 'exit',
        exit_days: 60,
        changed_at: isoSeconds(new Date(Date.parse(stale) + 60 * DAY_MS).toISOString()),
      }),
    ]);
    expect(await historyOf(freshId!)).toEqual([]);
  });

  it('leaves a listing alone that was re-sent or changed after the job looked (guard)', async () => {
    const { key, account_id } = await createTestKey();
    const [id] = await pushListings(key, [{ listed_at: daysAgo(80) }]);
    // An expiry computed from a view of the listing 70 days old; the stored updated_at is newer.
    const stale = daysAgo(70);
    await publish('rls.listing-status.v1', [
      {
        key: account_id,
        value: JSON.stringify({
          v: 1,
          kind: 'status',
          source: 'expiry',
          account_id,
          is_test: false,
          received_at: new Date().toISOString(),
          items: [
            {
              listing_id: id,
              status: 'expired',
              at: new Date(Date.parse(stale) + 60 * DAY_MS).toISOString(),
              unless_updated_after: stale,
            },
          ],
        }),
      },
    ]);
    // A later change on the same partition: once it is applied, the expiry before it was handled.
    await postStatus(key, [{ listing_id: id, status: 'under_contract' }]);
    await waitForStatus(key, id!, 'under_contract');
    expect((await historyOf(id!)).map((h) => h.status)).toEqual(['under_contract']);
  });
});

describe('re-sends', () => {
  it('return a listing to the market: within 30 days its days continue, later it is a new spell', async () => {
    const { key, account_id } = await createTestKey();
    const listedAt = daysAgo(60);
    const [soon, late] = await pushListings(key, [
      { external_id: 'soon', listed_at: listedAt },
      { external_id: 'late', listed_at: listedAt },
    ]);
    await postStatus(key, [
      { listing_id: soon, status: 'withdrawn', at: daysAgo(20) },
      { listing_id: late, status: 'rented', at: daysAgo(40) },
    ]);
    await waitForStatus(key, soon!, 'withdrawn');
    await waitForStatus(key, late!, 'rented');
    // The feed pushes both again (duplicates for bulk create; news for the lifecycle).
    const again = await api('POST', '/api/v1/listings/bulk', {
      key,
      body: { listings: ['soon', 'late'].map((external_id) => sampleListing({ external_id })) },
    });
    expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(['duplicate', 'duplicate']);
    expect(again.body.results[0].listing_id).toBe(listingIdFor(account_id, 'live', 'ext|soon'));
    await waitForStatus(key, soon!, 'active');
    await waitForStatus(key, late!, 'active');
    const last = async (id: string) => (await historyOf(id)).at(-1)!;
    expect(await last(soon!)).toMatchObject({
      source: 'resend',
      transition: 'return',
      spell_started_at: isoSeconds(listedAt),
    });
    const relist = await last(late!);
    expect(relist).toMatchObject({ source: 'resend', transition: 'relist' });
    expect(Date.parse(relist.spell_started_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('also when bulk create no longer knows the listing: the stream reports what it skips as stored', async () => {
    const { key, account_id } = await createTestKey();
    const [id] = await pushListings(key, [{ external_id: 'old-unit' }]);
    await postStatus(key, [{ listing_id: id, status: 'withdrawn' }]);
    await waitForStatus(key, id!, 'withdrawn');
    // Published again as new (after bulk create's 30-day duplicate window, say).
    await publish('rls.listings.v1', [
      {
        key: id!,
        value: JSON.stringify(
          listingMessage(
            account_id,
            sampleListing({ external_id: 'old-unit' }),
            id as `${string}-${string}-${string}-${string}-${string}`,
          ),
        ),
      },
    ]);
    await waitForStatus(key, id!, 'active');
    expect((await historyOf(id!)).at(-1)).toMatchObject({ source: 'resend', transition: 'return' });
  });
});
