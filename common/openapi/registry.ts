// A small OpenAPI 3.1 registry: each router module registers the paths it serves, with zod
// schemas for bodies and responses, and GET /api/v1/openapi.json renders the whole document.
// Create one per process in the composition root and pass it to every router (no singleton).
import { z } from 'zod';
import { errorResponseSchema } from './shared.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  schema: z.ZodType;
}

export interface OperationSpec {
  method: Method;
  /** OpenAPI path under /api/v1, with {braces} for parameters, e.g. /listings/batches/{batch_id}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags?: string[];
  /** False for the few endpoints that need no X-API-Key. */
  auth?: boolean;
  /** Served at `path` itself, not under /api/v1 (health, metrics, pages): an operation-level server. */
  outsideApiPrefix?: boolean;
  parameters?: ParameterSpec[];
  /**
   * The query string as the route parses it: one parameter per key, after `parameters`, required
   * unless the key may be absent, described by its schema's description (lifted to the parameter).
   */
  query?: z.ZodObject;
  requestBody?: z.ZodType;
  /** Success responses by status; error responses (shared shape) are listed by status code only. */
  responses: Record<
    number,
    {
      description: string;
      schema?: z.ZodType;
      headers?: Record<string, string>;
      /** A body that is not JSON (text/plain, text/html): its media type, documented as a string. */
      mediaType?: string;
      /** Other media types the same status may answer with, each with its schema (GeoJSON …). */
      alternatives?: Record<string, z.ZodType>;
    }
  >;
  errors?: number[];
}

const errorDescriptions: Record<number, string> = {
  400: 'Invalid request (see error.code and error.details)',
  401: 'Missing, malformed or unknown API key',
  403: "Key revoked, or the key's tier or role lacks the permission",
  404: 'Not found',
  409: 'Conflict (e.g. a request with this Idempotency-Key is in progress)',
  413: 'Request body too large',
  415: 'Content-Type is not application/json',
  422: 'Idempotency-Key reused with a different body; rent estimates: fewer than 5 comparables (insufficient_comparables)',
  429: "Rate limit or daily quota exceeded (rate_limited: the key's or its account's window, details.scope says which; quota_exceeded); analytics: the account's queue of running requests is full (concurrency_limited). Retry after Retry-After seconds",
  503: 'A dependency is unavailable; retry later',
};

/** A zod schema as JSON Schema, inlined (no $defs: local refs would resolve against the whole document). */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): unknown {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: 'inline',
  });
  return rest;
}

function parameter(p: ParameterSpec): Record<string, unknown> {
  return {
    name: p.name,
    in: p.in,
    required: p.in === 'path' ? true : (p.required ?? false),
    ...(p.description ? { description: p.description } : {}),
    schema: jsonSchema(p.schema, 'input'),
  };
}

function queryParameters(query: z.ZodObject | undefined): Record<string, unknown>[] {
  return Object.entries(query?.shape ?? {}).map(([name, field]) => {
    const { description, ...schema } = jsonSchema(field, 'input') as { description?: string };
    return {
      name,
      in: 'query',
      required: !field.safeParse(undefined).success,
      ...(description ? { description } : {}),
      schema,
    };
  });
}

/** The body of one success response: JSON (with its alternatives), another media type, or none. */
function successContent(response: OperationSpec['responses'][number]): Record<string, unknown> {
  if (response.schema) {
    return {
      content: {
        'application/json': { schema: jsonSchema(response.schema, 'output') },
        ...Object.fromEntries(
          Object.entries(response.alternatives ?? {}).map(([type, schema]) => [
            type,
            { schema: jsonSchema(schema, 'output') },
          ]),
        ),
      },
    };
  }
  return response.mediaType ? { content: { [response.mediaType]: { schema: { type: 'string' } } } } : {};
}

/** Success responses as declared, then the error statuses (by reference), in ascending order. */
function responsesOf(op: OperationSpec): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(op.responses)) {
    responses[status] = {
      description: response.description,
      ...(response.headers
        ? {
            headers: Object.fromEntries(
              Object.entries(response.headers).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      ...successContent(response),
    };
  }
  const errorStatuses = new Set([...(op.auth === false ? [] : [401, 403, 429]), ...(op.errors ?? [])]);
  for (const status of [...errorStatuses].sort()) {
    responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
  }
  return responses;
}

/** One operation of the document's paths. */
function operationObject(op: OperationSpec): Record<string, unknown> {
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.tags ? { tags: op.tags } : {}),
    ...(op.auth === false ? { security: [] } : {}),
    ...(op.outsideApiPrefix ? { servers: [{ url: '/', description: 'outside /api/v1' }] } : {}),
    ...(op.parameters?.length || op.query
      ? { parameters: [...(op.parameters ?? []).map(parameter), ...queryParameters(op.query)] }
      : {}),
    ...(op.requestBody
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchema(op.requestBody, 'input') } },
          },
        }
      : {}),
    responses: responsesOf(op),
  };
}

/** The key scheme and the shared error responses every operation refers to. */
function components(): Record<string, unknown> {
  const errorSchema = jsonSchema(errorResponseSchema, 'output');
  return {
    securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
    responses: Object.fromEntries(
      Object.entries(errorDescriptions).map(([status, description]) => [
        `Error${status}`,
        { description, content: { 'application/json': { schema: errorSchema } } },
      ]),
    ),
  };
}

export function createOpenApiRegistry(info: { title: string; version: string; description?: string }) {
  const operations: OperationSpec[] = [];

  function document(): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const op of operations) (paths[op.path] ??= {})[op.method] = operationObject(op);
    return {
      openapi: '3.1.0',
      info,
      servers: [{ url: '/api/v1' }],
      security: [{ ApiKey: [] }],
      paths,
      components: components(),
    };
  }

  return {
    /** Every registered operation's method and path (for routing checks and metric labels). */
    operations(): { method: Method; path: string; outsideApiPrefix: boolean }[] {
      return operations.map(({ method, path, outsideApiPrefix }) => ({
        method,
        path,
        outsideApiPrefix: !!outsideApiPrefix,
      }));
    },
    register(operation: OperationSpec): void {
      if (operations.some((o) => o.path === operation.path && o.method === operation.method)) {
        throw new Error(`OpenAPI: ${operation.method.toUpperCase()} ${operation.path} registered twice`);
      }
      operations.push(operation);
    },
    document,
  };
}

export type OpenApiRegistry = ReturnType<typeof createOpenApiRegistry>;
