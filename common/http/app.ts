// Builds the Express app every HTTP process serves: shared middleware (request id, access log and
// request metrics, CORS, compression of large answers), /healthz, /livez, /readyz and /metrics, the
// pages (/docs, /dashboard), 405 for undeclared methods, the given API routers under /api/v1, then
// the one 404 and error handlers. Bodies are read by the routes that take one, after authentication
// (json-body.ts).
import express, { type Router } from 'express';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';
import { createPathMatcher } from '../openapi/paths.ts';
import { registerOpsPaths } from '../openapi/ops-paths.ts';
import { createOpenApiRegistry, type OpenApiRegistry } from '../openapi/registry.ts';
import { accessLog } from './access-log.ts';
import { compressLargeAnswers } from './compression.ts';
import { cors } from './cors.ts';
import { errorHandler, notFound } from './errors.ts';
import { healthRoutes } from './health-routes.ts';
import { methodNotAllowed } from './method-not-allowed.ts';
import { metricsRoute } from './metrics-route.ts';
import { requestId } from './request-id.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './timeouts.ts';
import { TLS_PORT_OFFSET, type TlsConfig } from './tls.ts';
import type { HealthCheck } from '../health.ts';

export const API_PREFIX = '/api/v1';

export interface ApiAppOptions {
  logger: Logger;
  routers: Router[];
  /** The contract's /healthz: every component the service needs. */
  health: HealthCheck;
  /** /readyz: this process's own dependencies (default: `health`). */
  readiness?: HealthCheck;
  /** Shows health details to whoever presents it (OPERATOR_TOKEN; unset: to nobody). */
  operatorToken?: string;
  /** The document the routers registered in: route labels of the metrics, 405 for other methods. */
  openapi?: OpenApiRegistry;
  /** Pages served outside /api/v1 without a key (/docs, /dashboard); they register their paths. */
  pages?: (openapi: OpenApiRegistry) => Router;
}

export function createApiApp(options: ApiAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  const openapi =
    options.openapi ?? createOpenApiRegistry({ title: 'Rental Listings Service', version: '1' });
  registerOpsPaths(openapi);
  const pages = options.pages?.(openapi);
  const paths = createPathMatcher(openapi, API_PREFIX);
  app.use(requestId);
  app.use(accessLog(options.logger, paths));
  app.use(cors);
  app.use(compressLargeAnswers());
  app.use(
    healthRoutes({
      health: options.health,
      readiness: options.readiness ?? options.health,
      operatorToken: options.operatorToken,
    }),
  );
  app.use(metricsRoute());
  app.use(methodNotAllowed(paths));
  if (pages) app.use(pages);
  for (const router of options.routers) app.use(API_PREFIX, router);
  app.use(notFound);
  app.use(errorHandler(options.logger));
  return app;
}

export interface RunningServer {
  port: number;
  /** The HTTPS port when TLS is configured (see tls.ts). */
  tlsPort?: number;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Default every interface. */
  host?: string;
  /** HTTPS beside HTTP (TLS_CERT_FILE / TLS_KEY_FILE / TLS_PORT, tls.ts); default none. */
  tls?: TlsConfig | null;
  /** HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS of the process's environment. */
  timeouts?: HttpTimeouts;
}

/** Serves `app` over HTTP on `port`, and over HTTPS (TLS 1.3 only) when a certificate is given. */
export async function listen(
  app: express.Express,
  port: number,
  { host = '0.0.0.0', tls = null, timeouts = DEFAULT_HTTP_TIMEOUTS }: ListenOptions = {},
): Promise<RunningServer> {
  // Node checks the timeouts of open requests every connectionsCheckingInterval (default 30 s).
  const options = { connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs) };
  const servers: http.Server[] = [http.createServer(options, app)];
  if (tls) {
    servers.push(
      https.createServer({ ...options, cert: tls.cert, key: tls.key, minVersion: 'TLSv1.3' }, app),
    );
  }
  const ports: number[] = [];
  for (const [index, server] of servers.entries()) {
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = timeouts.headersMs;
    server.requestTimeout = timeouts.requestMs;
    const at = index === 0 ? port : (tls?.port ?? (port === 0 ? 0 : port + TLS_PORT_OFFSET));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(at, host, resolve);
    });
    ports.push((server.address() as AddressInfo).port);
  }
  return {
    port: ports[0]!,
    ...(tls ? { tlsPort: ports[1] } : {}),
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
            }),
        ),
      ).then(() => undefined),
  };
}
