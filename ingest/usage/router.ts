// GET /listings/bulk: key status and usage (spec §4.2), declared once (common/http/route.ts).
// Mounted by ingest/router.ts.
import { dependencyUnavailable } from '../../common/errors.ts';
import { defineRoute, type Route } from '../../common/http/route.ts';
import type { IngestContext } from '../context.ts';
import { keyStatus } from './key-status.ts';

type Deps = Parameters<typeof keyStatus>[0];

export function usageDeps(ctx: IngestContext): Deps {
  return { redis: ctx.platform.redis, prefix: ctx.platform.env.REDIS_KEY_PREFIX };
}

export const keyStatusRoute: Route<Deps> = defineRoute<Deps>({
  method: 'get',
  path: '/listings/bulk',
  operationId: 'keyStatus',
  summary: "The key's status, limits, current rate-limit window and usage (spec 4.2)",
  description:
    'Key (never the plaintext), limits, requests and listings today / this month. See docs/auth.md.',
  tags: ['listings'],
  access: { permission: 'usage:read' },
  responses: { 200: { description: 'Key status and usage' } },
  errors: [503],
  async handler({ auth, req }, deps) {
    // authenticate always sets rateLimit together with auth.
    const status = await keyStatus(deps, auth, req.rateLimit!).catch((error: unknown) => {
      throw dependencyUnavailable('redis', error);
    });
    return { status: 200, body: status };
  },
});
