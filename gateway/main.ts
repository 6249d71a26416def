// One HTTP process serving both APIs behind the single base URL of the contract (what `npm start`
// runs). Deployments that scale the APIs separately run ingest/main.ts and analytics-api/main.ts.
import { createAnalyticsContext } from '../analytics-api/context.ts';
import { createAnalyticsRouter } from '../analytics-api/router.ts';
import { createApiApp, listen } from '../common/http/app.ts';
import { httpTimeouts } from '../common/http/timeouts.ts';
import { readTlsConfig } from '../common/http/tls.ts';
import { createPages } from '../common/http/pages.ts';
import { createOpenApiRegistry } from '../common/openapi/registry.ts';
import { createOpenApiRouter } from '../common/openapi/router.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createIngestContext } from '../ingest/context.ts';
import { createIngestRouter } from '../ingest/router.ts';
import { GATEWAY_DEFAULT_PORT, gatewayEnvSchema } from './env.ts';

await runProcess('gateway', gatewayEnvSchema, async (env, logger) => {
  const platform = await startPlatform(env, logger, 'rls-gateway');
  const ingest = await createIngestContext(platform, env);
  const analytics = await createAnalyticsContext(platform, env);
  const openapi = createOpenApiRegistry({ title: 'Rental Listings Service API', version: '1.0.0' });
  const app = createApiApp({
    logger,
    routers: [
      createOpenApiRouter(openapi),
      createIngestRouter(ingest, openapi),
      createAnalyticsRouter(analytics, openapi),
    ],
    openapi,
    pages: (registry) => createPages(['docs', 'dashboard'], registry),
    health: platform.health,
    readiness: platform.readiness(['kafka', 'clickhouse', 'redis']),
    operatorToken: env.OPERATOR_TOKEN,
  });
  const server = await listen(app, env.PORT ?? GATEWAY_DEFAULT_PORT, {
    tls: readTlsConfig(env),
    timeouts: httpTimeouts(env),
  });
  logger.info('API listening', { port: server.port, base_url: `http://127.0.0.1:${server.port}/api/v1` });
  return {
    async stop() {
      await server.close();
      await ingest.close();
      await analytics.close();
      await platform.close();
    },
  };
});
