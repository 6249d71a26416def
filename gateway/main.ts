// One HTTP process serving both APIs behind the single base URL of the contract (what `npm start`
// runs). Deployments that scale the APIs separately run ingest/main.ts and analytics-api/main.ts.
import { createAnalyticsContext } from '../analytics-api/context.ts';
import { createAnalyticsRouter } from '../analytics-api/router.ts';
import { announceBenchBuild } from '../common/bench-build.ts';
import { serveApi } from '../common/http/serve-api.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createIngestContext } from '../ingest/context.ts';
import { createIngestRouter } from '../ingest/router.ts';
import { GATEWAY_DEFAULT_PORT, gatewayEnvSchema } from './env.ts';

await runProcess('gateway', gatewayEnvSchema, async (env, logger) => {
  announceBenchBuild(env, logger);
  const platform = await startPlatform(env, logger, 'rls-gateway');
  const ingest = await createIngestContext(platform, env);
  const analytics = await createAnalyticsContext(platform, env);
  const api = await serveApi(env, platform, logger, {
    title: 'Rental Listings Service API',
    routers: (openapi) => [createIngestRouter(ingest, openapi), createAnalyticsRouter(analytics, openapi)],
    pages: ['docs', 'dashboard'],
    readiness: ['kafka', 'clickhouse', 'redis'],
    port: env.PORT ?? GATEWAY_DEFAULT_PORT,
    contexts: [ingest, analytics],
  });
  logger.info('API listening', { port: api.port, base_url: `http://127.0.0.1:${api.port}/api/v1` });
  return api;
});
