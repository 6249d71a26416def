// The ingest API on its own (npm run start:ingest), for deployments that scale it separately.
import { createApiApp, listen } from '../common/http/app.ts';
import { httpTimeouts } from '../common/http/timeouts.ts';
import { readTlsConfig } from '../common/http/tls.ts';
import { createPages } from '../common/http/pages.ts';
import { createOpenApiRegistry } from '../common/openapi/registry.ts';
import { createOpenApiRouter } from '../common/openapi/router.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createIngestContext } from './context.ts';
import { INGEST_DEFAULT_PORT, ingestEnvSchema } from './env.ts';
import { createIngestRouter } from './router.ts';

await runProcess('ingest', ingestEnvSchema, async (env, logger) => {
  const platform = await startPlatform(env, logger, 'rls-ingest');
  const ctx = await createIngestContext(platform, env);
  const openapi = createOpenApiRegistry({ title: 'Rental Listings Service API (ingest)', version: '1.0.0' });
  const app = createApiApp({
    logger,
    routers: [createOpenApiRouter(openapi), createIngestRouter(ctx, openapi)],
    openapi,
    pages: (registry) => createPages(['docs'], registry),
    health: platform.health,
    readiness: platform.readiness(['kafka', 'clickhouse', 'redis']),
    operatorToken: env.OPERATOR_TOKEN,
  });
  const server = await listen(app, env.PORT ?? INGEST_DEFAULT_PORT, {
    tls: readTlsConfig(env),
    timeouts: httpTimeouts(env),
  });
  logger.info('ingest API listening', { port: server.port });
  return {
    async stop() {
      await server.close();
      await ctx.close();
      await platform.close();
    },
  };
});
