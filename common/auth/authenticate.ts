// Authentication shared by every endpoint of both APIs (spec §5, docs/auth.md, "API keys"):
//   401 missing_api_key / invalid_api_key: no key, malformed key (checksum, no Redis lookup), unknown key
//   403 revoked_api_key: the key was revoked, or rolled and past its grace period (read from Redis
//       on every request, never cached)
//   429 rate_limited: the key's window, or its account's (all its keys together), is used up
//       (Retry-After = seconds until it reopens; details.scope says which)
//   503 dependency_unavailable: Redis is unreachable (never a 500, never silently unlimited)
//   403 insufficient_tier: requirePermission, for a tier without the route's permission
//   403 insufficient_role: requireRole, for a key without the route's role (/keys*: admin)
// Lookup, rate limit and usage counting happen in one Redis round trip (access-check.ts). Every
// response to a request with an active key carries RateLimit-Limit/-Remaining/-Reset.
import type { NextFunction, Request, Response } from 'express';
import { AppError, dependencyUnavailable } from '../errors.ts';
import { rateLimitRejections } from '../metrics/registry.ts';
import { RATE_WINDOW_MS } from './access-check.ts';
import { parseApiKey } from './api-key-format.ts';
import type { ApiKeyRecord, KeyStore, RateLimitState } from './key-store.ts';
import type { Role } from './roles.ts';
import { tierPolicies, type Permission } from './tiers.ts';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: ApiKeyRecord;
    rateLimit?: RateLimitState;
  }
}

export function authenticate(keys: KeyStore) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('x-api-key');
    if (!key) return next(new AppError('missing_api_key', 'The X-API-Key header is required'));
    if (!parseApiKey(key)) {
      return next(
        new AppError('invalid_api_key', 'The X-API-Key header does not hold a well-formed API key'),
      );
    }
    let decision: Awaited<ReturnType<KeyStore['authorize']>>;
    try {
      decision = await keys.authorize(key, endpointLabel(req));
    } catch (error) {
      return next(dependencyUnavailable('redis', error));
    }
    if (decision.outcome === 'unknown') return next(new AppError('invalid_api_key', 'Unknown API key'));
    if (decision.outcome === 'inactive') {
      const { expires_at, revoked_at, replaced_by } = decision.record;
      const expired = expires_at !== undefined && revoked_at === expires_at;
      return next(
        new AppError(
          'revoked_api_key',
          expired
            ? `This API key expired at ${expires_at} after it was rolled; use its replacement ${replaced_by}`
            : 'This API key has been revoked',
        ),
      );
    }
    setRateLimitHeaders(res, decision.rateLimit);
    req.rateLimit = decision.rateLimit;
    keyHashes.set(decision.record, decision.keyHash);
    if (decision.outcome === 'rate_limited') {
      const { limit, resetSeconds, scope } = decision.rateLimit;
      rateLimitRejections.inc({ tier: decision.record.tier, scope });
      const whose = scope === 'account' ? "The account's rate limit (all its keys together)" : 'Rate limit';
      return next(
        new AppError(
          'rate_limited',
          `${whose} of ${limit} requests per minute exceeded; retry after ${resetSeconds} s`,
          {
            retryAfterSeconds: resetSeconds,
            details: {
              limit,
              scope,
              window_seconds: RATE_WINDOW_MS / 1000,
              retry_after_seconds: resetSeconds,
            },
          },
        ),
      );
    }
    req.auth = decision.record;
    next();
  };
}

/** Route guard: the key's tier must grant `permission`. */
export function requirePermission(permission: Permission) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const auth = req.auth;
    if (!auth) return next(new AppError('missing_api_key', 'The X-API-Key header is required'));
    if (!tierPolicies[auth.tier]?.permissions.includes(permission)) {
      return next(
        new AppError('insufficient_tier', `The ${auth.tier} tier does not include ${permission}`, {
          details: { tier: auth.tier, required_permission: permission },
        }),
      );
    }
    next();
  };
}

/** Route guard: the key must have `role` (roles.ts); the tier does not matter. */
export function requireRole(role: Role) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const auth = req.auth;
    if (!auth) return next(new AppError('missing_api_key', 'The X-API-Key header is required'));
    if (auth.role !== role) {
      return next(
        new AppError('insufficient_role', `This endpoint needs a key with the ${role} role`, {
          details: { role: auth.role, required_role: role },
        }),
      );
    }
    next();
  };
}

/**
 * The SHA-256 of the key each authenticated record was presented with: the name of its usage
 * counters (common/usage/keys.ts). Kept beside the record, not in it, so it never reaches a response.
 */
const keyHashes = new WeakMap<ApiKeyRecord, string>();

/** The id and hash of the key that authenticated `auth` (a record `authenticate` set on a request). */
export function authenticatedKey(auth: ApiKeyRecord): { id: string; hash: string } {
  const hash = keyHashes.get(auth);
  if (!hash) throw new Error(`key ${auth.id} was not authenticated by this process`);
  return { id: auth.id, hash };
}

/** The authenticated key of a request that passed `authenticate`. */
export function authOf(req: Request): ApiKeyRecord {
  if (!req.auth) throw new AppError('missing_api_key', 'The X-API-Key header is required');
  return req.auth;
}

/**
 * IETF draft "RateLimit header fields" (draft-ietf-httpapi-ratelimit-headers, separate fields):
 * limit per window, remaining in the window, delta-seconds until the window resets.
 */
function setRateLimitHeaders(res: Response, state: RateLimitState): void {
  res.setHeader('RateLimit-Limit', String(state.limit));
  res.setHeader('RateLimit-Remaining', String(state.remaining));
  res.setHeader('RateLimit-Reset', String(state.resetSeconds));
}

/**
 * Usage label of the request: method plus the route pattern (`GET /analytics/pricing`,
 * `DELETE /webhooks/:id`), never the raw path, so ids cannot blow up the counters.
 */
function endpointLabel(req: Request): string {
  const route = (req.route as { path?: unknown } | undefined)?.path;
  return `${req.method} ${typeof route === 'string' ? route : '(other)'}`;
}
