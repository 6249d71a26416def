// The listing lifecycle routes (docs/lifecycle.md), each declared once (common/http/route.ts):
// POST /listings/status, snapshots (POST /listings/snapshots, GET /listings/snapshots/{id},
// POST …/{id}/confirm) and GET /listings/{id}. Mounted after the other /listings routes, which keep
// /listings/bulk and /listings/batches/…; any other GET /listings/{id} lands here (an id that is not
// a UUID is a 404 like an unknown one).
import { z } from 'zod';
import type { ApiKeyRecord } from '../../common/auth/key-store.ts';
import { defineRoute, type Route } from '../../common/http/route.ts';
import { readActiveStock, readListingStates } from '../../common/lifecycle/states.ts';
import type { IngestContext } from '../context.ts';
import { replayable, type ReplayableHandler } from '../idempotent-route.ts';
import { idempotencyKeyParam } from '../openapi-parameters.ts';
import { quotaStore } from '../quota.ts';
import { noneAccepted } from '../respond.ts';
import { parseBodyWith } from '../validation/body.ts';
import { storedListing } from './listing-details.ts';
import {
  snapshotRecordSchema,
  statusBodyDocSchema,
  statusResponseSchema,
  storedListingSchema,
} from './schemas.ts';
import { snapshotStore } from './snapshot-store.ts';
import {
  confirmSnapshot,
  readSnapshot,
  snapshotPartSchema,
  submitPart,
  type SnapshotDeps,
  type SnapshotPart,
} from './snapshots.ts';
import { statusQuota, STATUS_CHANGES_PER_LISTING_DAY } from './status-quota.ts';
import { updateStatuses, type StatusUpdateDeps } from './status-updates.ts';

interface Deps {
  updateStatus: ReplayableHandler;
  snapshots: SnapshotDeps;
  storedListing(auth: ApiKeyRecord, id: string, testMode: boolean): ReturnType<typeof storedListing>;
}

/** What the lifecycle handlers use: status updates and snapshots, published to the status topic. */
export function lifecycleDeps(ctx: IngestContext): Deps {
  const { platform } = ctx;
  const topic = platform.topic('rls.listing-status.v1');
  const publish = async (message: { account_id: string }) => {
    await ctx.statusPublisher.publish(topic, [{ key: message.account_id, value: JSON.stringify(message) }]);
  };
  const deps: StatusUpdateDeps = {
    readStates: (ids) => readListingStates(platform.clickhouse, ids),
    publish,
    quota: statusQuota(platform.redis, platform.env.REDIS_KEY_PREFIX),
  };
  return {
    updateStatus: replayable(ctx, 'status', async (auth, body) => {
      const outcome = await updateStatuses(deps, auth, body);
      if (outcome.status === 400) {
        throw noneAccepted('status update', outcome.response);
      }
      return { status: 200, body: outcome.response };
    }),
    snapshots: {
      store: snapshotStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
      quota: quotaStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
      activeStock: (account, isTest) => readActiveStock(platform.clickhouse, account, isTest),
      publish,
      logger: platform.logger,
    },
    storedListing: (auth, id, testMode) => storedListing(platform.clickhouse, auth, id, testMode),
  };
}

/** test_mode=true: a live key addresses its account's test mode; any other value: the key's mode. */
function testModeQuery(liveKeyDoes: string) {
  const description = `true: a live key ${liveKeyDoes} (test keys always do); any other value: the key's mode`;
  return {
    schema: z.object({ test_mode: z.string().optional().meta({ description }) }),
    parse: (raw: Record<string, unknown>) => ({ testMode: raw.test_mode === 'true' }),
  };
}
const snapshotId = {
  name: 'snapshot_id',
  in: 'path' as const,
  schema: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/),
};
const snapshotTestMode = testModeQuery("addresses the account's test-mode snapshot");
const common = { tags: ['listings'], access: { permission: 'listings:write' as const } };

/** A snapshot part, checked whole before it is stored: a 400 naming the field. */
export const snapshotPartBody = {
  schema: snapshotPartSchema,
  parse: parseBodyWith(snapshotPartSchema, 'Invalid snapshot part'),
};

export const lifecycleRoutes: Route<Deps>[] = [
  defineRoute<Deps>({
    ...common,
    method: 'post',
    path: '/listings/status',
    operationId: 'updateListingStatuses',
    summary: 'Change the status of up to 100 listings (active, under_contract, rented, withdrawn)',
    description:
      '200 when at least one update was accepted; 400 (code all_listings_failed, the 200 body in ' +
      "error.details) when none was. Only the account's own listings of the request's mode; " +
      "another account's id is a failed entry with code not_found. Applied asynchronously through " +
      'Kafka, in order per account: GET /listings/{listing_id} shows the status once stored. ' +
      'Repeating a status the listing already has changes nothing. Accepted updates count against ' +
      'a daily quota by tier (429 quota_exceeded, quota status_updates_per_day); one listing takes ' +
      `at most ${STATUS_CHANGES_PER_LISTING_DAY} accepted changes per UTC day, an update past ` +
      'that is a failed entry with code status_cap_reached. Idempotency-Key replays the first answer for 24 h. Tiers: all ' +
      '(permission listings:write). See docs/lifecycle.md.',
    parameters: [idempotencyKeyParam],
    // Each update is checked on its own (status-updates.ts): an invalid one fails alone.
    body: { schema: statusBodyDocSchema },
    responses: { 200: { description: 'Accepted (some or all updates)', schema: statusResponseSchema } },
    errors: [400, 409, 413, 415, 422, 503],
    handler: (input, deps) => deps.updateStatus(input),
  }),
  defineRoute<Deps, undefined, SnapshotPart>({
    ...common,
    method: 'post',
    path: '/listings/snapshots',
    operationId: 'submitSnapshotPart',
    summary: 'One part of a complete snapshot: the external_ids of every listing on the market',
    description:
      'When the last part arrives, the listings on the market with an external_id missing from the ' +
      'snapshot are withdrawn (source snapshot) — unless that is more than 30 % of the stock: the ' +
      'snapshot is then held until POST /listings/snapshots/{snapshot_id}/confirm. A part sent twice ' +
      'counts once; a part whose parts differs from the first part of its snapshot_id is a 400 ' +
      'conflicting_fields. External ids count against a daily quota by tier (429 quota_exceeded, ' +
      'quota snapshot_ids_per_day) and a snapshot holds at most a number of them by tier (413 ' +
      'snapshot_too_large). Tiers: all (permission listings:write). See docs/lifecycle.md.',
    body: snapshotPartBody,
    responses: { 202: { description: 'The snapshot so far (or its outcome)', schema: snapshotRecordSchema } },
    errors: [400, 413, 415, 503],
    handler: async ({ auth, body }, { snapshots }) => ({
      status: 202,
      body: await submitPart(snapshots, auth, body),
    }),
  }),
  defineRoute<Deps, { testMode: boolean }>({
    ...common,
    method: 'get',
    path: '/listings/snapshots/{snapshot_id}',
    operationId: 'getSnapshot',
    summary: 'A snapshot: parts received, outcome (applied or held), stock and withdrawals',
    parameters: [snapshotId],
    query: snapshotTestMode,
    responses: { 200: { description: 'The snapshot', schema: snapshotRecordSchema } },
    errors: [404, 503],
    handler: async ({ auth, params, query }, { snapshots }) => ({
      status: 200,
      body: await readSnapshot(snapshots, auth, params.snapshot_id!, query.testMode),
    }),
  }),
  defineRoute<Deps, { testMode: boolean }>({
    ...common,
    method: 'post',
    path: '/listings/snapshots/{snapshot_id}/confirm',
    operationId: 'confirmSnapshot',
    summary: 'Apply a held snapshot (it would withdraw more than 30 % of the stock)',
    description: 'An applied snapshot is answered as it is; one still collecting is a 400.',
    parameters: [snapshotId],
    query: snapshotTestMode,
    responses: { 200: { description: 'The snapshot, applied', schema: snapshotRecordSchema } },
    errors: [400, 404, 503],
    handler: async ({ auth, params, query }, { snapshots }) => ({
      status: 200,
      body: await confirmSnapshot(snapshots, auth, params.snapshot_id!, query.testMode),
    }),
  }),
  defineRoute<Deps, { testMode: boolean }>({
    ...common,
    method: 'get',
    path: '/listings/{listing_id}',
    operationId: 'getListing',
    summary: 'A listing as stored, with its status and image checks (owning account only)',
    description:
      "Another account's listing is 404, as is a listing of the other mode (a live key reads its " +
      'test-mode listings with test_mode=true). Tiers: all (permission listings:write).',
    parameters: [{ name: 'listing_id', in: 'path', schema: z.uuid() }],
    query: testModeQuery("reads the account's test-mode listing"),
    responses: { 200: { description: 'The listing', schema: storedListingSchema } },
    errors: [404, 503],
    handler: async ({ auth, params, query }, deps) => ({
      status: 200,
      body: await deps.storedListing(auth, params.listing_id!, query.testMode),
    }),
  }),
];
