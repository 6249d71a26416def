// 405 with `Allow` for a method the OpenAPI document does not declare on a path it does (RFC 9110
// §15.5.6), before any router sees the request: otherwise a PUT to /listings/bulk would be a 404, and
// a POST to a path whose router reads bodies a 415. OPTIONS is CORS's (answered before, cors.ts).
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.ts';
import type { PathMatcher } from '../openapi/paths.ts';

export function methodNotAllowed(paths: PathMatcher) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const match = paths.match(req.path);
    if (!match || match.methods.includes(req.method)) return next();
    const allow = [...match.methods, 'OPTIONS'].join(', ');
    res.setHeader('Allow', allow);
    next(
      new AppError(
        'method_not_allowed',
        `${req.method} is not allowed on ${match.template}; allowed: ${allow}`,
      ),
    );
  };
}
