// The analytics API on its own (npm run start:analytics).
import { serveApi } from '../common/http/serve-api.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createAnalyticsContext } from './context.ts';
import { ANALYTICS_DEFAULT_PORT, analyticsEnvSchema } from './env.ts';
import { createAnalyticsRouter } from './router.ts';

await runProcess('analytics', analyticsEnvSchema, async (env, logger) => {
  const platform = await startPlatform(env, logger, 'rls-analytics');
  const ctx = await createAnalyticsContext(platform, env);
  const api = await serveApi(env, platform, logger, {
    title: 'Rental Listings Service analytics API',
    routers: (openapi) => [createAnalyticsRouter(ctx, openapi)],
    pages: ['docs', 'dashboard'],
    readiness: ['clickhouse', 'redis'],
    port: env.PORT ?? ANALYTICS_DEFAULT_PORT,
    contexts: [ctx],
  });
  logger.info('analytics API listening', { port: api.port });
  return api;
});
