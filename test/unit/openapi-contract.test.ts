// The document states what the service answers (found by Schemathesis against a running instance):
// an operation whose query parameters are validated lists the 400 their validation answers, and
// the view event schema lets listing_id be absent, because an event without it is a per-event
// rejection in a 202 (contract, "View events"), not an invalid request.
import { describe, expect, it } from 'vitest';
import { analyticsRoutes } from '../../analytics-api/router.ts';
import { registerRoutes } from '../../common/http/route.ts';
import { registerOpsPaths } from '../../common/openapi/ops-paths.ts';
import { createOpenApiRegistry } from '../../common/openapi/registry.ts';
import { ingestDocumentedRoutes } from '../../ingest/router.ts';
import { viewEventSchema } from '../../ingest/views/schemas.ts';

interface Parameter {
  name: string;
  in: string;
  schema?: Record<string, unknown>;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: Record<string, any> }> };
}

function documentOfEveryPath() {
  const registry = createOpenApiRegistry({ title: 't', version: '1' });
  for (const register of [
    registerOpsPaths,
    (r: typeof registry) => registerRoutes(r, ingestDocumentedRoutes),
    (r: typeof registry) => registerRoutes(r, analyticsRoutes),
  ]) {
    register(registry);
  }
  return registry.document() as { paths: Record<string, Record<string, Operation>> };
}

/** A query parameter whose schema refuses some strings: the route answers 400 for those. */
const constrains = (schema: Record<string, unknown> = {}) =>
  ['pattern', 'enum', 'format', 'minimum', 'maximum', 'minLength', 'maxLength'].some((k) => k in schema) ||
  (schema.type !== undefined && schema.type !== 'string');

describe('OpenAPI document and answers agree (contract)', () => {
  const doc = documentOfEveryPath();
  const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));

  it('lists 400 on GET /keys, whose limit and after are validated (invalid_parameter)', () => {
    expect(doc.paths['/keys']!.get!.responses).toHaveProperty('400');
  });

  it('lists 400 on every operation with a validated query parameter', () => {
    const missing = operations
      .filter((op) => (op.parameters ?? []).some((p) => p.in === 'query' && constrains(p.schema)))
      .filter((op) => !('400' in op.responses))
      .map((op) => op.operationId);
    expect(missing).toEqual([]);
  });

  it('lets a view event lack listing_id in the document, which the service rejects per event', () => {
    const body = doc.paths['/events/views']!.post!.requestBody!.content['application/json']!.schema;
    const item = body.properties.events.items as { required?: string[]; properties: Record<string, any> };
    expect(item.required ?? []).not.toContain('listing_id');
    expect(item.properties.listing_id.description).toMatch(/Required for the event to be accepted/);
    // The parser still requires it: the event is rejected on its own (ingest-views.test.ts: 202).
    const parsed = viewEventSchema.safeParse({ viewer_id: 'v' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['listing_id']);
  });
});
