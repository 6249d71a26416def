// Builds the Express app every HTTP process serves: shared middleware, the given API routers under
// /api/v1, /healthz, then the one 404 and error handlers.
import express, { type Router } from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.ts';
import { cors } from './cors.ts';
import { errorHandler, notFound } from './errors.ts';
import { jsonBody } from './json-body.ts';
import { requestId } from './request-id.ts';
import type { HealthCheck } from '../health.ts';

export const API_PREFIX = '/api/v1';
/** Largest accepted request body: 100 listings of ~10 KB each, with room to spare. */
export const DEFAULT_BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export interface ApiAppOptions {
  logger: Logger;
  routers: Router[];
  health: HealthCheck;
  bodyLimitBytes?: number;
}

export function createApiApp(options: ApiAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', 'loopback');
  app.use(requestId);
  app.use(cors);
  app.get('/healthz', async (_req, res) => {
    const report = await options.health.report();
    res.status(report.status === 'ok' ? 200 : 503).json(report);
  });
  app.use(API_PREFIX, jsonBody(options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES));
  for (const router of options.routers) app.use(API_PREFIX, router);
  app.use(notFound);
  app.use(errorHandler(options.logger));
  return app;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export async function listen(app: express.Express, port: number, host = '0.0.0.0'): Promise<RunningServer> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
