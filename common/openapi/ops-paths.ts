// The operations every API process serves outside /api/v1 (common/http/app.ts), in its OpenAPI
// document with an operation-level server `/`, so a client (or Schemathesis) calls /healthz and
// not /api/v1/healthz.
import type { OpenApiRegistry, OperationSpec } from './registry.ts';

const operatorNote =
  'Body {"status"} only; with X-Operator-Token (OPERATOR_TOKEN) also the components, lag and errors';

export function registerOpsPaths(registry: OpenApiRegistry): void {
  const common: Pick<OperationSpec, 'tags' | 'auth' | 'outsideApiPrefix'> = {
    tags: ['meta'],
    auth: false,
    outsideApiPrefix: true,
  };
  registry.register({
    ...common,
    method: 'get',
    path: '/healthz',
    operationId: 'health',
    summary: 'Readiness of Kafka, ClickHouse, Redis and the stream workers (the whole service)',
    description: operatorNote,
    responses: { 200: { description: 'All components ok' }, 503: { description: 'A component is failing' } },
  });
  registry.register({
    ...common,
    method: 'get',
    path: '/readyz',
    operationId: 'ready',
    summary: "Readiness of this process's own dependencies (route traffic to it when 200)",
    description: operatorNote,
    responses: { 200: { description: 'Ready' }, 503: { description: 'A dependency is failing' } },
  });
  registry.register({
    ...common,
    method: 'get',
    path: '/livez',
    operationId: 'live',
    summary: 'The process answers; no dependency is checked (restart it when this fails)',
    responses: { 200: { description: 'Alive' } },
  });
  registry.register({
    ...common,
    method: 'get',
    path: '/metrics',
    operationId: 'metrics',
    summary: "This process's Prometheus metrics (text exposition format 0.0.4)",
    description: 'See the README, "Observability", for the metric families.',
    responses: { 200: { description: 'Metrics', mediaType: 'text/plain' } },
  });
}
