// The pages of the contract ("Pages"), no key: /docs, the API reference rendered from this process's
// /api/v1/openapi.json by Swagger UI (npm swagger-ui-dist, served from node_modules), and
// /dashboard, the analytics map and, at /dashboard#keys, the Keys page of admin keys (web/dashboard/;
// the user types a key, which only the browser keeps). Every file is served from this process: a Content-Security-Policy of 'self' makes the
// browser refuse anything else, so a page can never quietly depend on a CDN or a tile server.
import { Router, type Response } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { OpenApiRegistry } from '../openapi/registry.ts';

// web/ beside common/ in the source tree, and in dist/ (copied there by npm run build).
const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  // Swagger UI sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

interface Page {
  html: string;
  /** Files under /<page>/assets/, by name: where each comes from. */
  assets: Record<string, string>;
}

const pages: Record<'docs' | 'dashboard', Page> = {
  docs: {
    html: path.join(webDir, 'docs/index.html'),
    assets: {
      'swagger-ui-bundle.js': path.join(swaggerDir, 'swagger-ui-bundle.js'),
      'swagger-ui.css': path.join(swaggerDir, 'swagger-ui.css'),
      'docs.js': path.join(webDir, 'docs/docs.js'),
      'docs.css': path.join(webDir, 'docs/docs.css'),
    },
  },
  dashboard: {
    html: path.join(webDir, 'dashboard/index.html'),
    assets: {
      'dashboard.js': path.join(webDir, 'dashboard/dashboard.js'),
      'dashboard.css': path.join(webDir, 'dashboard/dashboard.css'),
      'map.js': path.join(webDir, 'dashboard/map.js'),
      'api.js': path.join(webDir, 'dashboard/api.js'),
      'dom.js': path.join(webDir, 'dashboard/dom.js'),
      'tabs.js': path.join(webDir, 'dashboard/tabs.js'),
      'keys.js': path.join(webDir, 'dashboard/keys.js'),
      'key-audit.js': path.join(webDir, 'dashboard/key-audit.js'),
      'one-time-key.js': path.join(webDir, 'dashboard/one-time-key.js'),
      'locations.js': path.join(webDir, 'dashboard/locations.js'),
      'periods.js': path.join(webDir, 'dashboard/periods.js'),
      'svg.js': path.join(webDir, 'dashboard/svg.js'),
      'figures.js': path.join(webDir, 'dashboard/figures.js'),
      'analytic-page.js': path.join(webDir, 'dashboard/analytic-page.js'),
      'velocity.js': path.join(webDir, 'dashboard/velocity.js'),
      'seasonality.js': path.join(webDir, 'dashboard/seasonality.js'),
      'market-share.js': path.join(webDir, 'dashboard/market-share.js'),
      'estimate.js': path.join(webDir, 'dashboard/estimate.js'),
      'estimate-map.js': path.join(webDir, 'dashboard/estimate-map.js'),
      // The shipped cities and neighbourhoods (centres and radii): the map's outline and points.
      'locations.json': path.join(webDir, '../infra/locations/locations.json'),
    },
  },
};

function send(res: Response, file: string): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-cache');
  res.sendFile(file);
}

/** Routes of the chosen pages, registered in `openapi` (outside /api/v1, no key). */
export function createPages(names: (keyof typeof pages)[], openapi: OpenApiRegistry): Router {
  const router = Router();
  for (const name of names) {
    const page = pages[name];
    const files = Object.keys(page.assets) as [string, ...string[]];
    router.get(`/${name}`, (_req, res) => send(res, page.html));
    router.get(`/${name}/assets/:file`, (req, res, next) => {
      // Own properties only: `__proto__`, `constructor` or `toString` must not reach Object.prototype.
      const file = Object.hasOwn(page.assets, req.params.file) ? page.assets[req.params.file] : undefined;
      if (!file) return next(); // the 404 of every unknown path
      send(res, file);
    });
    const common = { auth: false, outsideApiPrefix: true };
    openapi.register({
      ...common,
      tags: ['pages'],
      method: 'get',
      path: `/${name}`,
      operationId: `${name}Page`,
      summary:
        name === 'docs'
          ? 'This API reference (HTML)'
          : 'The analytics dashboard: #market, #velocity, #seasonality, #market-share, #estimate and #keys (HTML; the key is typed in the page)',
      responses: { 200: { description: 'The page', mediaType: 'text/html' } },
    });
    openapi.register({
      ...common,
      tags: ['pages'],
      method: 'get',
      path: `/${name}/assets/{file}`,
      operationId: `${name}Asset`,
      summary: `A file of the ${name} page`,
      parameters: [{ name: 'file', in: 'path', schema: z.enum(files) }],
      responses: { 200: { description: 'The file (script, style sheet or JSON)' } },
      errors: [404],
    });
  }
  return router;
}
