// /keys routes: admin keys manage their own account's keys (contract "API keys"; docs/auth.md).
// Mounted by ingest/router.ts. Every route needs the admin role, whatever the tier.
import { Router, type Request } from 'express';
import { authenticate, authOf, requireRole } from '../../common/auth/authenticate.ts';
import type { KeyActor } from '../../common/auth/key-audit.ts';
import { jsonBody } from '../../common/http/json-body.ts';
import type { OpenApiRegistry } from '../../common/openapi/registry.ts';
import type { IngestContext } from '../context.ts';
import { quotaStore } from '../quota.ts';
import { readKeyAudit } from './audit-read.ts';
import { registerKeyPaths } from './openapi.ts';
import { keyAdminService } from './service.ts';

export function createKeysRouter(ctx: IngestContext, openapi?: OpenApiRegistry): Router {
  const { platform } = ctx;
  if (openapi) registerKeyPaths(openapi);
  const service = keyAdminService({
    keys: platform.keys,
    audit: ctx.keyAudit,
    quota: quotaStore(platform.redis, platform.env.REDIS_KEY_PREFIX),
    logger: platform.logger.child({ task: 'key-admin' }),
  });
  const router = Router();
  const guard = [authenticate(platform.keys), requireRole('admin')];

  router.post('/keys', ...guard, jsonBody(), async (req, res) => {
    res.status(201).json(await service.create(authOf(req), actorOf(req), req.body));
  });
  router.get('/keys', ...guard, async (req, res) => {
    res.json(await service.list(authOf(req), req.query));
  });
  router.get('/keys/audit', ...guard, async (req, res) => {
    res.json({ events: await readKeyAudit(platform.clickhouse, authOf(req)) });
  });
  router.delete('/keys/:id', ...guard, async (req, res) => {
    res.json(await service.revoke(authOf(req), actorOf(req), String(req.params.id)));
  });
  router.post('/keys/:id/roll', ...guard, jsonBody(), async (req, res) => {
    res.status(201).json(await service.roll(authOf(req), actorOf(req), String(req.params.id), req.body));
  });
  return router;
}

/** Who acts, for the audit log: the admin key, the client address ('trust proxy' decides), the request. */
function actorOf(req: Request): KeyActor {
  return {
    source: 'api',
    keyId: authOf(req).id,
    clientIp: (req.ip ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, ''),
    requestId: req.requestId,
  };
}
