// The lifecycle paths in the OpenAPI document (common/openapi/registry.ts); rules in docs/lifecycle.md.
import { z } from 'zod';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import { idempotencyKeyParam } from '../openapi-parameters.ts';
import {
  snapshotRecordSchema,
  statusBodyDocSchema,
  statusResponseSchema,
  storedListingSchema,
} from './schemas.ts';
import { snapshotPartSchema } from './snapshots.ts';
import { STATUS_CHANGES_PER_LISTING_DAY } from './status-quota.ts';

const snapshotId = {
  name: 'snapshot_id',
  in: 'path' as const,
  schema: z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/),
};
// Exactly what routes.ts reads: the value true opts in; any other value, like none, does not.
function testModeParam(liveKeyDoes: string) {
  return {
    name: 'test_mode',
    in: 'query' as const,
    description: `true: a live key ${liveKeyDoes} (test keys always do); any other value: the key's mode`,
    schema: z.string(),
  };
}
const snapshotTestMode = testModeParam("addresses the account's test-mode snapshot");

export function registerLifecyclePaths(registry: OpenApiRegistry): void {
  registry.register({
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
    tags: ['listings'],
    parameters: [idempotencyKeyParam],
    requestBody: statusBodyDocSchema,
    responses: { 200: { description: 'Accepted (some or all updates)', schema: statusResponseSchema } },
    errors: [400, 409, 413, 415, 422, 503],
  });
  registry.register({
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
    tags: ['listings'],
    requestBody: snapshotPartSchema,
    responses: { 202: { description: 'The snapshot so far (or its outcome)', schema: snapshotRecordSchema } },
    errors: [400, 413, 415, 503],
  });
  registry.register({
    method: 'get',
    path: '/listings/snapshots/{snapshot_id}',
    operationId: 'getSnapshot',
    summary: 'A snapshot: parts received, outcome (applied or held), stock and withdrawals',
    tags: ['listings'],
    parameters: [snapshotId, snapshotTestMode],
    responses: { 200: { description: 'The snapshot', schema: snapshotRecordSchema } },
    errors: [404, 503],
  });
  registry.register({
    method: 'post',
    path: '/listings/snapshots/{snapshot_id}/confirm',
    operationId: 'confirmSnapshot',
    summary: 'Apply a held snapshot (it would withdraw more than 30 % of the stock)',
    description: 'An applied snapshot is answered as it is; one still collecting is a 400.',
    tags: ['listings'],
    parameters: [snapshotId, snapshotTestMode],
    responses: { 200: { description: 'The snapshot, applied', schema: snapshotRecordSchema } },
    errors: [400, 404, 503],
  });
  registry.register({
    method: 'get',
    path: '/listings/{listing_id}',
    operationId: 'getListing',
    summary: 'A listing as stored, with its status and image checks (owning account only)',
    description:
      "Another account's listing is 404, as is a listing of the other mode (a live key reads its " +
      'test-mode listings with test_mode=true). Tiers: all (permission listings:write).',
    tags: ['listings'],
    parameters: [
      { name: 'listing_id', in: 'path', schema: z.uuid() },
      testModeParam("reads the account's test-mode listing"),
    ],
    responses: { 200: { description: 'The listing', schema: storedListingSchema } },
    errors: [404, 503],
  });
}
