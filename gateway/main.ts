// One HTTP process serving both APIs behind the single base URL of the contract (what `npm start`
// runs). Deployments that scale the APIs separately run ingest/main.ts and analytics-api/main.ts.
import { createAnalyticsContext } from '../analytics-api/context.ts';
import { createAnalyticsRouter } from '../analytics-api/router.ts';
import { baseEnvSchema, envFields, parseEnv } from '../common/env.ts';
import { createApiApp, listen } from '../common/http/app.ts';
import { createPages } from '../common/http/pages.ts';
import { createOpenApiRegistry } from '../common/openapi/registry.ts';
import { createOpenApiRouter } from '../common/openapi/router.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createIngestContext } from '../ingest/context.ts';
import { createIngestRouter } from '../ingest/router.ts';

const gatewayEnvSchema = baseEnvSchema.extend({ PORT: envFields.port.default(8080) });

await runProcess('gateway', async (logger) => {
  const env = parseEnv(gatewayEnvSchema);
  const platform = await startPlatform(env, logger, 'rls-gateway');
  const ingest = await createIngestContext(platform);
  const analytics = await createAnalyticsContext(platform);
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
  });
  const server = await listen(app, env.PORT);
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
