// HTTP for the listing lifecycle (docs/lifecycle.md): POST /listings/status, snapshots
// (POST /listings/snapshots, GET /listings/snapshots/{id}, POST …/{id}/confirm) and GET /listings/{id}.
// Mounted after the other /listings routes, which keep /listings/bulk and /listings/batches/…; any
// other GET /listings/{id} lands here (an id that is not a UUID is a 404 like an unknown one).
import { Router, type Request } from 'express';
import { authenticate, authOf, requirePermission } from '../../common/auth/authenticate.ts';
import { jsonBody } from '../../common/http/json-body.ts';
import { readActiveStock, readListingStates } from '../../common/lifecycle/states.ts';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import type { IngestContext } from '../context.ts';
import { quotaStore } from '../quota.ts';
import { idempotentPost, noneAccepted } from '../respond.ts';
import { storedListing } from './listing-details.ts';
import { registerLifecyclePaths } from './openapi.ts';
import { snapshotStore } from './snapshot-store.ts';
import { confirmSnapshot, readSnapshot, submitPart, type SnapshotDeps } from './snapshots.ts';
import { statusQuota } from './status-quota.ts';
import { updateStatuses, type StatusUpdateDeps } from './status-updates.ts';

export function createLifecycleRouter(ctx: IngestContext, openapi?: OpenApiRegistry): Router {
  const { platform } = ctx;
  if (openapi) registerLifecyclePaths(openapi);
  const router = Router();
  const guard = [authenticate(platform.keys), requirePermission('listings:write')];
  const topic = platform.topic('rls.listing-status.v1');
  const deps: StatusUpdateDeps = {
    readStates: (ids) => readListingStates(platform.clickhouse, ids),
    async publish(message) {
      await ctx.statusPublisher.publish(topic, [{ key: message.account_id, value: JSON.stringify(message) }]);
    },
    quota: statusQuota(platform.redis, platform.env.REDIS_KEY_PREFIX),
  };

  const updateStatus = idempotentPost(ctx, 'status', async (auth, body) => {
    const outcome = await updateStatuses(deps, auth, body);
    if (outcome.status === 400) {
      throw noneAccepted('status update', outcome.response);
    }
    return { status: 200, body: outcome.response };
  });
  router.post('/listings/status', ...guard, ...updateStatus);

  const snapshots: SnapshotDeps = {
    store: snapshotStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    quota: quotaStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    activeStock: (account, isTest) => readActiveStock(platform.clickhouse, account, isTest),
    async publish(message) {
      await ctx.statusPublisher.publish(topic, [{ key: message.account_id, value: JSON.stringify(message) }]);
    },
    logger: platform.logger,
  };
  const testMode = (req: Request) => req.query.test_mode === 'true';
  router.post('/listings/snapshots', ...guard, jsonBody(), async (req, res) => {
    res.status(202).json(await submitPart(snapshots, authOf(req), req.body));
  });
  router.get('/listings/snapshots/:snapshot_id', ...guard, async (req, res) => {
    res.json(await readSnapshot(snapshots, authOf(req), String(req.params.snapshot_id), testMode(req)));
  });
  router.post('/listings/snapshots/:snapshot_id/confirm', ...guard, async (req, res) => {
    res.json(await confirmSnapshot(snapshots, authOf(req), String(req.params.snapshot_id), testMode(req)));
  });

  router.get('/listings/:listing_id', ...guard, async (req, res) => {
    res.json(
      await storedListing(platform.clickhouse, authOf(req), String(req.params.listing_id), testMode(req)),
    );
  });

  return router;
}
