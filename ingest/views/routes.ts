// POST /events/views (contract, "View events"), declared once (common/http/route.ts).
import type { ViewMessage } from '../../common/domain/messages.ts';
import { defineRoute, type Route } from '../../common/http/route.ts';
import type { IngestContext } from '../context.ts';
import { replayable, type ReplayableHandler } from '../idempotent-route.ts';
import { idempotencyKeyParam } from '../openapi-parameters.ts';
import { listingOwnership } from './ownership.ts';
import { recordViews, type RecordViewsDeps } from './record-views.ts';
import { viewsBodyDocSchema, viewsResponseSchema } from './schemas.ts';
import { viewGuard } from './view-guard.ts';

interface Deps {
  recordViewEvents: ReplayableHandler;
}

/** What the views handler uses: recordViews behind the Idempotency-Key store. */
export function viewDeps(ctx: IngestContext): Deps {
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
  return {
    recordViewEvents: replayable(ctx, 'views', async (auth, body) => ({
      status: 202,
      body: await recordViews(deps, auth, body),
    })),
  };
}

export const viewsRoute: Route<Deps> = defineRoute<Deps>({
  method: 'post',
  path: '/events/views',
  operationId: 'recordViews',
  summary: 'Record up to 1,000 listing views (topic rls.views.v1)',
  description:
    "Views of the account's own listings in the request's mode only (others: rejected entry not_found), " +
    'unless the key has the portal role; at most 3 views per listing, viewer and UTC day count ' +
    '(view_cap_reached); accepted events count against the daily quota (429 quota_exceeded). ' +
    'Each event is validated on its own: an invalid one (listing_id missing, a field of the wrong ' +
    'type or format) is listed in rejected with its errors and the request still answers 202; only ' +
    'an invalid envelope is 400. See docs/ingest.md.',
  tags: ['events'],
  access: { permission: 'events:write' },
  parameters: [idempotencyKeyParam],
  // Each event is checked on its own (record-views.ts): an invalid one is rejected alone.
  body: { schema: viewsBodyDocSchema },
  responses: {
    202: { description: 'Accepted; invalid events listed by index', schema: viewsResponseSchema },
  },
  errors: [400, 409, 413, 415, 422, 503],
  handler: (input, deps) => deps.recordViewEvents(input),
});
