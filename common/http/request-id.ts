import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
  }
}

const acceptable = /^[A-Za-z0-9._-]{8,64}$/;

/** Every request gets an id (the caller's X-Request-Id when sane), echoed in the response header. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  req.requestId = incoming && acceptable.test(incoming) ? incoming : `req_${randomUUID()}`;
  res.setHeader('X-Request-Id', req.requestId);
  next();
}
