// The Redis key families of batches and webhooks (part of registry.ts's list): a batch's record
// and counters, the account's outbox, webhooks and deliveries under the account's hash tag, and the
// indexes of accounts with outbox entries or due deliveries in REDIS_GLOBAL_PARTS parts.
import { lifetime, owned, type KeyFamily } from './family.ts';
import {
  dropOldLeases,
  moveBatchKeys,
  moveDelivery,
  moveDueIndex,
  moveDueSet,
  moveOutbox,
  moveWebhook,
  renameAccountWebhooks,
} from './legacy-batches-webhooks.ts';
import { BATCH_TTL_SECONDS, batchKeys } from '../batches.ts';
import { imageCheckSets, imageChecksKey } from '../photos/batch-image-checks.ts';
import { photoSummaryDoneKey, photoSummaryKey } from '../photos/batch-summary.ts';
import { outboxIndexKeys, webhookOutboxKey } from '../webhooks/outbox.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, webhookKeys } from '../webhooks/store.ts';
import { DELIVERY_TTL_SECONDS, deliveryQueueKeys, dueIndexKeys } from '../../stream/webhooks/queue.ts';

const quotaAndTtl = (quota: string) => `the TTL and the account's daily ${quota} quota (ingest/quota.ts)`;
const perBatch = {
  ttl: lifetime(BATCH_TTL_SECONDS),
  bound: `${quotaAndTtl('listings')}: one per batch, a member per listing or image`,
};

export const batchAndWebhookKeyFamilies: readonly KeyFamily[] = [
  ...owned('common/batches.ts', [
    {
      name: '{a:<account>}:batch:<batch>',
      type: 'hash',
      build: (p) => batchKeys(p, 'a1', 'b1').record,
      tag: 'account',
      legacy: { pattern: 'batch:*', move: moveBatchKeys },
      ...perBatch,
    },
    {
      name: '{a:<account>}:batch:<batch>:pending',
      type: 'set',
      build: (p) => batchKeys(p, 'a1', 'b1').pending,
      tag: 'account',
      legacy: { pattern: 'batch:*:pending', move: moveBatchKeys },
      ...perBatch,
    },
  ]),
  ...owned('common/photos/batch-image-checks.ts', [
    {
      name: '{a:<account>}:batch:<batch>:images',
      type: 'hash',
      build: (p) => imageChecksKey(p, 'a1', 'b1'),
      tag: 'account',
      legacy: { pattern: 'batch:*:images', move: moveBatchKeys },
      ...perBatch,
    },
    {
      name: '{a:<account>}:batch:<batch>:images:seen',
      type: 'set',
      build: (p) => imageCheckSets(imageChecksKey(p, 'a1', 'b1')).seenListings,
      tag: 'account',
      legacy: { pattern: 'batch:*:images:seen', move: moveBatchKeys },
      ...perBatch,
    },
    {
      name: '{a:<account>}:batch:<batch>:images:done',
      type: 'set',
      build: (p) => imageCheckSets(imageChecksKey(p, 'a1', 'b1')).doneImages,
      tag: 'account',
      legacy: { pattern: 'batch:*:images:done', move: moveBatchKeys },
      ...perBatch,
    },
  ]),
  ...owned('common/photos/batch-summary.ts', [
    {
      name: '{a:<account>}:batch:<batch>:photos',
      type: 'hash',
      build: (p) => photoSummaryKey(p, 'a1', 'b1'),
      tag: 'account',
      legacy: { pattern: 'batch:*:photos', move: moveBatchKeys },
      ...perBatch,
    },
    {
      name: '{a:<account>}:batch:<batch>:photos:done',
      type: 'set',
      build: (p) => photoSummaryDoneKey(photoSummaryKey(p, 'a1', 'b1')),
      tag: 'account',
      legacy: { pattern: 'batch:*:photos:done', move: moveBatchKeys },
      ...perBatch,
    },
  ]),
  ...owned('common/webhooks/outbox.ts', [
    {
      name: '{a:<account>}:outbox',
      type: 'stream',
      build: (p) => webhookOutboxKey(p, 'a1'),
      tag: 'account',
      legacy: { pattern: 'outbox', move: moveOutbox },
      ttl: 'none',
      bound:
        'an entry leaves once its deliveries are enqueued, never capped: grows while delivery is behind (shown in /healthz)',
    },
    {
      name: '{g:<part>}:webhook:outbox-accounts',
      type: 'sorted set',
      build: (p) => outboxIndexKeys(p, 3).order,
      tag: 'part',
      ttl: 'none',
      bound: 'a member per account with outbox entries (or touched in the last 2 min)',
    },
    {
      name: '{g:<part>}:webhook:outbox-accounts:stamps',
      type: 'hash',
      build: (p) => outboxIndexKeys(p, 3).stamps,
      tag: 'part',
      ttl: 'none',
      bound: 'a field per member of the index beside it',
    },
  ]),
  ...owned('common/webhooks/store.ts', [
    {
      name: '{a:<account>}:webhook:<webhook>',
      type: 'hash',
      build: (p) => webhookKeys(p).webhook('a1', 'wh_1'),
      tag: 'account',
      legacy: { pattern: 'webhook:wh_*', move: moveWebhook },
      ttl: 'none',
      bound: `${MAX_WEBHOOKS_PER_ACCOUNT} per account (deleted ones are removed)`,
    },
    {
      name: '{a:<account>}:account:<account>:webhooks',
      type: 'sorted set',
      build: (p) => webhookKeys(p).accountWebhooks('a1'),
      tag: 'account',
      legacy: { pattern: 'account:*:webhooks', rename: renameAccountWebhooks },
      ttl: 'none',
      bound: `${MAX_WEBHOOKS_PER_ACCOUNT} members`,
    },
  ]),
  ...owned('stream/webhooks/queue.ts', [
    {
      name: '{g:<part>}:webhook:due-accounts',
      type: 'sorted set',
      build: (p) => dueIndexKeys(p, 3).order,
      tag: 'part',
      legacy: { pattern: 'webhook:due-accounts', move: moveDueIndex },
      ttl: 'none',
      bound: 'a member per account with pending deliveries (or touched in the last 2 min)',
    },
    {
      name: '{g:<part>}:webhook:due-accounts:stamps',
      type: 'hash',
      build: (p) => dueIndexKeys(p, 3).stamps,
      tag: 'part',
      ttl: 'none',
      bound: 'a field per member of the index beside it',
    },
    {
      name: '{a:<account>}:webhook:leases',
      type: 'hash',
      build: (p) => deliveryQueueKeys(p).leases('a1'),
      tag: 'account',
      legacy: { pattern: 'webhook:leases', move: dropOldLeases },
      ttl: 'none',
      bound: 'a field per delivery of the account being attempted',
    },
    {
      name: '{a:<account>}:webhook:due:<account>',
      type: 'sorted set',
      build: (p) => deliveryQueueKeys(p).due('a1'),
      tag: 'account',
      legacy: { pattern: 'webhook:due:*', move: moveDueSet },
      ttl: 'none',
      bound: "the account's pending deliveries (removed when delivered or given up)",
    },
    {
      name: '{a:<account>}:webhook:delivery:<delivery>',
      type: 'hash',
      build: (p) => deliveryQueueKeys(p).delivery('a1', 'd1'),
      tag: 'account',
      legacy: { pattern: 'webhook:delivery:*', move: moveDelivery },
      ttl: lifetime(DELIVERY_TTL_SECONDS),
      bound: 'the TTL: a delivery per event and webhook (events come from quota-bounded work)',
    },
  ]),
];
