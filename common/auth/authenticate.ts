// Authentication shared by every endpoint of both APIs (spec §5): 401 for a missing, malformed or
// unknown key, 403 for a revoked key or a tier without the permission. No caching, so a revocation
// applies to the very next request on every process.
import type { NextFunction, Request, Response } from 'express';
import { AppError, dependencyUnavailable } from '../errors.ts';
import { parseApiKey } from './api-key-format.ts';
import type { ApiKeyRecord, KeyStore } from './key-store.ts';
import { tierPolicies, type Permission } from './tiers.ts';

declare module 'express-serve-static-core' {
  interface Request {
    auth?: ApiKeyRecord;
  }
}

export function authenticate(keys: KeyStore) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('x-api-key');
    if (!key) return next(new AppError('missing_api_key', 'The X-API-Key header is required'));
    if (!parseApiKey(key)) {
      return next(
        new AppError('invalid_api_key', 'The X-API-Key header does not hold a well-formed API key'),
      );
    }
    let record: ApiKeyRecord | null;
    try {
      record = await keys.findByKey(key);
    } catch (error) {
      return next(dependencyUnavailable('redis', error));
    }
    if (!record) return next(new AppError('invalid_api_key', 'Unknown API key'));
    if (record.status === 'revoked')
      return next(new AppError('revoked_api_key', 'This API key has been revoked'));
    req.auth = record;
    next();
  };
}

/** Route guard: the key's tier must grant `permission`. */
export function requirePermission(permission: Permission) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const auth = req.auth;
    if (!auth) return next(new AppError('missing_api_key', 'The X-API-Key header is required'));
    if (!tierPolicies[auth.tier].permissions.includes(permission)) {
      return next(
        new AppError('insufficient_tier', `The ${auth.tier} tier does not include ${permission}`, {
          details: { tier: auth.tier, required_permission: permission },
        }),
      );
    }
    next();
  };
}

/** The authenticated key of a request that passed `authenticate`. */
export function authOf(req: Request): ApiKeyRecord {
  if (!req.auth) throw new AppError('missing_api_key', 'The X-API-Key header is required');
  return req.auth;
}
