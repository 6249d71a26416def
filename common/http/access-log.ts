// One access log line and one http_request_duration_seconds observation per request, when its
// response is sent (or the client went away first). The route label is the documented path template
// (paths.ts), so ids never become label values. Nothing of the request's headers is logged: the
// API key travels in one; the key's id (not secret) is logged once authentication has set it.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger.ts';
import { httpRequestDuration } from '../metrics/registry.ts';
import type { PathMatcher } from '../openapi/paths.ts';

export function accessLog(logger: Logger, paths: PathMatcher) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const path = req.path; // now: inside a router, req.path is relative to its mount point
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = paths.match(path)?.template ?? 'unmatched';
      // A client that hung up before the answer: no status was sent; 499 as nginx logs it.
      const status = res.writableFinished ? res.statusCode : 499;
      httpRequestDuration.observe({ method: req.method, route, status_code: String(status) }, seconds);
      logger.info('request', {
        request_id: req.requestId,
        method: req.method,
        path,
        route,
        status,
        duration_ms: Math.round(seconds * 1e4) / 10,
        bytes_out: Number(res.getHeader('content-length') ?? 0) || undefined,
        ip: req.ip,
        ...(req.auth ? { key_id: req.auth.id, account_id: req.auth.account_id } : {}),
      });
    };
    res.once('finish', finish);
    res.once('close', finish);
    next();
  };
}
