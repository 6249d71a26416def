// The API's paths in the OpenAPI document come from the route declarations (common/http/route.ts):
// rendered without any service, they are exactly the paths of the committed document the clients
// are generated from (clients/typescript/openapi.json), in the same order, byte for byte.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOpenApiRegistry } from '../../common/openapi/registry.ts';
import { createOpenApiRouter } from '../../common/openapi/router.ts';
import { analyticsRoutes } from '../../analytics-api/router.ts';
import { registerRoutes } from '../../common/http/route.ts';
import { ingestDocumentedRoutes } from '../../ingest/router.ts';

const committed = JSON.parse(
  readFileSync(new URL('../../clients/typescript/openapi.json', import.meta.url), 'utf8'),
) as { paths: Record<string, unknown> };

describe('OpenAPI paths from the route declarations', () => {
  it('happy: the API paths are the committed document’s, in order, byte for byte', () => {
    const registry = createOpenApiRegistry({ title: 'test', version: '1' });
    createOpenApiRouter(registry);
    registerRoutes(registry, ingestDocumentedRoutes);
    registerRoutes(registry, analyticsRoutes);
    const rendered = (registry.document() as { paths: Record<string, unknown> }).paths;
    const expected = Object.fromEntries(Object.entries(committed.paths).filter(([path]) => path in rendered));
    expect(JSON.stringify(rendered, null, 2)).toBe(JSON.stringify(expected, null, 2));
  });
});
