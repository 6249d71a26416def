// The ports of the service's own components, which an OUTBOUND_ALLOW_CIDRS entry without a port
// range never opens (ip-policy.ts): a webhook or image URL must not reach Kafka, ClickHouse (whose
// HTTP interface runs the query of a GET, and whose native port a stray request can abort), Redis
// or our own API on an allowed host. Derived from the connection settings every process already has
// (every shard and cluster node included), plus OUTBOUND_PROTECTED_PORTS: the local stack lists
// there every port it listens on (infra/local/settings.mjs, stackPorts), internal ones included.
import type { OutboundEnv } from '../env.ts';
import { TLS_PORT_OFFSET } from '../http/tls.ts';
import { createAddressPolicy, type AddressPolicy } from './ip-policy.ts';

/** The HTTP ports of the API processes when PORT is not set (gateway, ingest, analytics). */
const DEFAULT_API_PORTS = [8080, 8081, 8082];

export function servicePorts(env: OutboundEnv): number[] {
  const ports = new Set<number>();
  for (const broker of env.KAFKA_BROKERS) {
    const port = /:(\d+)$/.exec(broker)?.[1];
    ports.add(port ? Number(port) : 9092);
  }
  for (const url of [env.CLICKHOUSE_URL, ...env.CLICKHOUSE_NODES]) {
    const clickhouse = new URL(url);
    ports.add(Number(clickhouse.port) || (clickhouse.protocol === 'https:' ? 443 : 80));
  }
  ports.add(Number(new URL(env.REDIS_URL).port) || 6379);
  for (const node of env.REDIS_CLUSTER_NODES) ports.add(Number(node.split(':').pop()));
  for (const port of env.OUTBOUND_PROTECTED_PORTS) ports.add(port);
  const apiPorts = env.PORT !== undefined ? [env.PORT] : DEFAULT_API_PORTS;
  for (const port of apiPorts) ports.add(port);
  if (env.TLS_PORT !== undefined) ports.add(env.TLS_PORT);
  else if (env.TLS_CERT_FILE) for (const port of apiPorts) ports.add(port + TLS_PORT_OFFSET);
  for (const port of [env.CLICKHOUSE_TCP_PORT, env.KAFKA_CONTROLLER_PORT]) if (port) ports.add(port);
  ports.delete(0);
  return [...ports].sort((a, b) => a - b);
}

/** The outbound policy of this process (its parsed environment): OUTBOUND_ALLOW_CIDRS, minus the service's own ports. */
export function outboundPolicy(env: OutboundEnv): AddressPolicy {
  return createAddressPolicy(env.OUTBOUND_ALLOW_CIDRS, { servicePorts: servicePorts(env) });
}
