// One declaration per route: its method, path, access rule, validated query and body, answers and
// errors, and its handler. The same declaration is mounted on Express (mountRoutes: access checked,
// input validated once, the handler called with typed input) and documented in the OpenAPI registry
// (registerRoutes), so the document and the server cannot drift apart.
// Declarations are module constants; what a handler needs (stores, publishers) comes as `deps`,
// given once when the routes are mounted, so a document can be built without any service.
import type { Request, RequestHandler, Response, Router } from 'express';
import type { z } from 'zod';
import { authOf, requirePermission, requireRole } from '../auth/authenticate.ts';
import type { ApiKeyRecord } from '../auth/key-store.ts';
import type { Role } from '../auth/roles.ts';
import type { Permission } from '../auth/tiers.ts';
import { AppError } from '../errors.ts';
import type { OpenApiRegistry, OperationSpec } from '../openapi/registry.ts';
import { jsonBody } from './json-body.ts';

/** Who may call a route: a key with a permission (by tier), a key with a role, or anyone. */
export type Access = { permission: Permission } | { role: Role } | 'public';

export interface RouteInput<Q, B> {
  /** The calling key (routes with access 'public' must not read it). */
  auth: ApiKeyRecord;
  /** Path parameters by their documented name ({batch_id} → params.batch_id). */
  params: Record<string, string>;
  query: Q;
  body: B;
  /** For what only HTTP has: headers to set, the raw body an Idempotency-Key is compared by. */
  req: Request;
  res: Response;
}

/** What a handler answers: a status and a JSON body, or nothing when it has sent the response itself. */
export type RouteAnswer = { status: number; body: unknown } | undefined;

export interface RouteDeclaration<D, Q, B> extends Omit<
  OperationSpec,
  'auth' | 'query' | 'requestBody' | 'outsideApiPrefix'
> {
  access: Access;
  /** The query string: documented key by key from `schema`; `parse` turns it into the handler's input. */
  query?: { schema: z.ZodObject; parse: (raw: Record<string, unknown>) => Q };
  /**
   * The JSON body as documented (`schema`) and as read (`parse`, default: as the client sent it, for
   * handlers whose service checks it item by item). `read: false`: documented but not read.
   */
  body?: { schema: z.ZodType; parse?: (raw: unknown) => B; read?: false };
  /**
   * A rule on the calling key checked before the query and body are judged (after the body is
   * read): a key that may not do this at all is told so whatever it sent.
   */
  keyCheck?: (auth: ApiKeyRecord) => void;
  handler: (input: RouteInput<Q, B>, deps: D) => Promise<RouteAnswer>;
}

/** A declaration with its input types erased: what areas list and mount. */
export interface Route<D> {
  operation: OperationSpec;
  /** The Express handlers after authentication: access, body reader, the validated call. */
  handlers(deps: D): RequestHandler[];
}

export function defineRoute<D, Q = undefined, B = unknown>(declaration: RouteDeclaration<D, Q, B>): Route<D> {
  const { access, query, body, keyCheck, handler, ...documented } = declaration;
  const operation: OperationSpec = {
    ...documented,
    ...(access === 'public' ? { auth: false } : {}),
    ...(query ? { query: query.schema } : {}),
    ...(body ? { requestBody: body.schema } : {}),
  };
  return {
    operation,
    handlers(deps) {
      const checks: RequestHandler[] = [];
      if (access !== 'public') {
        checks.push('permission' in access ? requirePermission(access.permission) : requireRole(access.role));
      }
      if (body && body.read !== false) checks.push(jsonBody());
      const call: RequestHandler = async (req, res) => {
        keyCheck?.(authOf(req));
        const input: RouteInput<Q, B> = {
          auth: access === 'public' ? (undefined as never) : authOf(req),
          params: Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, String(v)])),
          query: query ? query.parse(req.query as Record<string, unknown>) : (undefined as Q),
          body: body?.parse ? body.parse(req.body) : (req.body as B),
          req,
          res,
        };
        const answer = await handler(input, deps);
        if (answer) res.status(answer.status).json(answer.body);
      };
      return [...checks, call];
    },
  };
}

/**
 * A query parser from the schema alone: any mismatch is a 400 invalid_parameter naming the keys,
 * with `message` (default: "Invalid query parameter" and the first key).
 */
export function parseQueryWith<S extends z.ZodObject>(schema: S, message?: string) {
  return (raw: Record<string, unknown>): z.output<S> => {
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const details = parsed.error.issues.map((issue) => ({
      parameter: issue.path.join('.'),
      message: issue.message,
    }));
    throw new AppError('invalid_parameter', message ?? `Invalid query parameter ${details[0]?.parameter}`, {
      details,
    });
  };
}

/** Express writes /listings/:id where OpenAPI writes /listings/{id}. */
export function expressPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/** Mounts each route in order, behind `authenticate` unless it is public. */
export function mountRoutes<D>(
  router: Router,
  authenticate: RequestHandler,
  routes: Route<D>[],
  deps: D,
): void {
  for (const route of routes) {
    const { method, path, auth } = route.operation;
    const handlers = route.handlers(deps);
    router[method](expressPath(path), ...(auth === false ? handlers : [authenticate, ...handlers]));
  }
}

/** Documents each route, in order (the order of the document's paths). */
export function registerRoutes(registry: OpenApiRegistry, routes: Route<never>[]): void {
  for (const route of routes) registry.register(route.operation);
}
