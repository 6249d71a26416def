// What every API process (gateway, ingest alone, analytics alone) does once its contexts exist: one
// OpenAPI document its routers register in, the app around them (health, readiness, pages, health
// details for the operator) and its listeners (HTTP, plus HTTPS when a certificate is configured);
// and how it stops: the listeners first, then its contexts, then the platform beneath them.
import type { Router } from 'express';
import type { Stoppable } from '../run.ts';
import type { ListenerEnv, TlsEnv } from '../env.ts';
import type { Logger } from '../logger.ts';
import { createOpenApiRegistry, type OpenApiRegistry } from '../openapi/registry.ts';
import { createOpenApiRouter } from '../openapi/router.ts';
import type { Platform, ProbeName } from '../platform.ts';
import { createApiApp, listen } from './app.ts';
import { createPages } from './pages.ts';
import { httpTimeouts } from './timeouts.ts';
import { readTlsConfig } from './tls.ts';

export interface ApiProcess {
  /** Title of the process's OpenAPI document. */
  title: string;
  /** The process's routers, registering their operations in the document. */
  routers: (openapi: OpenApiRegistry) => Router[];
  pages: Parameters<typeof createPages>[0];
  /** /readyz: the dependencies of this process alone. */
  readiness: ProbeName[];
  port: number;
  /** What the routers use, closed in this order once the listeners have stopped. */
  contexts: { close(): Promise<void> }[];
}

export interface ServedApi extends Stoppable {
  port: number;
}

export async function serveApi(
  env: ListenerEnv & TlsEnv,
  platform: Platform,
  logger: Logger,
  api: ApiProcess,
): Promise<ServedApi> {
  const openapi = createOpenApiRegistry({ title: api.title, version: '1.0.0' });
  const app = createApiApp({
    logger,
    routers: [createOpenApiRouter(openapi), ...api.routers(openapi)],
    openapi,
    pages: (registry) => createPages(api.pages, registry),
    health: platform.health,
    readiness: platform.readiness(api.readiness),
    operatorToken: env.OPERATOR_TOKEN,
  });
  const server = await listen(app, api.port, { tls: readTlsConfig(env), timeouts: httpTimeouts(env) });
  return {
    port: server.port,
    async stop() {
      await server.close();
      for (const context of api.contexts) await context.close();
      await platform.close();
    },
  };
}
