// GET /healthz, /livez and /readyz (contract, "Health"), no key. Anyone gets the status and the
// HTTP code a load balancer needs; component names, lag and error texts (which map the
// infrastructure for an attacker) only with the operator token, `X-Operator-Token: $OPERATOR_TOKEN`.
// The same details are logged on every change (common/health.ts).
//   /healthz  Kafka, ClickHouse, Redis and the stream workers: 200 only when all are ready
//   /livez    the process answers (no dependency checked): restart it when this fails
//   /readyz   the process's own dependencies only: route traffic to it when this is 200
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type { HealthCheck } from '../health.ts';

export function healthRoutes(options: {
  health: HealthCheck;
  readiness: HealthCheck;
  operatorToken?: string;
}): Router {
  const expected = options.operatorToken ? digest(options.operatorToken) : undefined;
  const isOperator = (req: Request) => {
    const presented = req.get('x-operator-token');
    return !!expected && !!presented && timingSafeEqual(digest(presented), expected);
  };
  const answer = async (req: Request, res: Response, check: HealthCheck) => {
    const report = await check.report();
    res.setHeader('Cache-Control', 'no-store');
    // Node names (`kafka-2`, the contract's pid-file names) are public; their addresses and the
    // errors are in the operator's `components`.
    const pub = report.down?.length
      ? { status: report.status, down: report.down }
      : { status: report.status };
    res.status(report.status === 'ok' ? 200 : 503).json(isOperator(req) ? report : pub);
  };

  const router = Router();
  router.get('/healthz', (req, res) => answer(req, res, options.health));
  router.get('/readyz', (req, res) => answer(req, res, options.readiness));
  router.get('/livez', (_req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    res.json({ status: 'ok' });
  });
  return router;
}

/** Fixed-length digests, so the comparison takes the same time whatever was presented. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}
