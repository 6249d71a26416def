// The ingest API on its own (npm run start:ingest), for deployments that scale it separately.
import { announceBenchBuild } from '../common/bench-build.ts';
import { serveApi } from '../common/http/serve-api.ts';
import { startPlatform } from '../common/platform.ts';
import { runProcess } from '../common/run.ts';
import { createIngestContext } from './context.ts';
import { INGEST_DEFAULT_PORT, ingestEnvSchema } from './env.ts';
import { createIngestRouter } from './router.ts';

await runProcess('ingest', ingestEnvSchema, async (env, logger) => {
  announceBenchBuild(env, logger);
  const platform = await startPlatform(env, logger, 'rls-ingest');
  const ctx = await createIngestContext(platform, env);
  const api = await serveApi(env, platform, logger, {
    title: 'Rental Listings Service API (ingest)',
    routers: (openapi) => [createIngestRouter(ctx, openapi)],
    pages: ['docs'],
    readiness: ['kafka', 'clickhouse', 'redis'],
    port: env.PORT ?? INGEST_DEFAULT_PORT,
    contexts: [ctx],
  });
  logger.info('ingest API listening', { port: api.port });
  return api;
});
