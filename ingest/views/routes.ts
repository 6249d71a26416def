// HTTP for POST /events/views (contract, "View events").
import { Router } from 'express';
import { authenticate, requirePermission } from '../../common/auth/authenticate.ts';
import type { ViewMessage } from '../../common/domain/messages.ts';
import type { IngestContext } from '../context.ts';
import { idempotentPost } from '../respond.ts';
import { listingOwnership } from './ownership.ts';
import { recordViews, type RecordViewsDeps } from './record-views.ts';
import { viewGuard } from './view-guard.ts';

export function createViewsRouter(ctx: IngestContext): Router {
  const router = Router();
  const guard = [authenticate(ctx.platform.keys), requirePermission('events:write')];
  const topic = ctx.platform.topic('rls.views.v1');
  const { redis, clickhouse, env } = ctx.platform;
  const deps: RecordViewsDeps = {
    guard: viewGuard(redis, env.REDIS_KEY_PREFIX),
    ownership: listingOwnership({
      clickhouse,
      redis,
      prefix: env.REDIS_KEY_PREFIX,
      parts: env.REDIS_GLOBAL_PARTS,
    }),
    async publish(messages: ViewMessage[]) {
      await ctx.viewPublisher.publish(
        topic,
        messages.map((m) => ({ key: m.listing_id, value: JSON.stringify(m) })),
      );
    },
    logger: ctx.platform.logger,
  };

  const recordViewEvents = idempotentPost(ctx, 'views', async (auth, body) => ({
    status: 202,
    body: await recordViews(deps, auth, body),
  }));
  router.post('/events/views', ...guard, ...recordViewEvents);

  return router;
}
