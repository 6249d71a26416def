// The analytics API on its own (npm run start:analytics).
import { createApiApp, listen } from '../common/http/app.ts';
import { httpTimeouts } from '../common/http/timeouts.ts';
import { readTlsConfig } from '../common/http/tls.ts';
import { createPages } from '../common/http/pages.ts';
import { createOpenApiRegistry } from '../common/openapi/registry.ts';
import { createOpenApiRouter } from '../common/openapi/router.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createAnalyticsContext } from './context.ts';
import { ANALYTICS_DEFAULT_PORT, analyticsEnvSchema } from './env.ts';
import { createAnalyticsRouter } from './router.ts';

await runProcess('analytics', analyticsEnvSchema, async (env, logger) => {
  const platform = await startPlatform(env, logger, 'rls-analytics');
  const ctx = await createAnalyticsContext(platform, env);
  const openapi = createOpenApiRegistry({ title: 'Rental Listings Service analytics API', version: '1.0.0' });
  const app = createApiApp({
    logger,
    routers: [createOpenApiRouter(openapi), createAnalyticsRouter(ctx, openapi)],
    openapi,
    pages: (registry) => createPages(['docs', 'dashboard'], registry),
    health: platform.health,
    readiness: platform.readiness(['clickhouse', 'redis']),
    operatorToken: env.OPERATOR_TOKEN,
  });
  const server = await listen(app, env.PORT ?? ANALYTICS_DEFAULT_PORT, {
    tls: readTlsConfig(env),
    timeouts: httpTimeouts(env),
  });
  logger.info('analytics API listening', { port: server.port });
  return {
    async stop() {
      await server.close();
      await ctx.close();
      await platform.close();
    },
  };
});
