// GET /metrics (contract, "Health"; no key): this process's Prometheus metrics in the text format
// (common/metrics/registry.ts). Like /healthz it is answered before any router or key check.
import { Router } from 'express';
import { metricsRegistry } from '../metrics/registry.ts';

export function metricsRoute(): Router {
  const router = Router();
  router.get('/metrics', async (_req, res) => {
    const body = await metricsRegistry.metrics();
    res.setHeader('Cache-Control', 'no-store');
    res.type(metricsRegistry.contentType).send(body);
  });
  return router;
}
