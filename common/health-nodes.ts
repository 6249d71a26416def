// Which nodes of a clustered dependency are down, for /healthz (contract: it names each node that
// is down). A cluster that lost one node keeps serving (Kafka's other replicas, Redis's promoted
// replica), so a node down does not by itself fail the component; it is named instead. Nodes are
// named by their place in the configured list, as the local stack names their pid files:
// `kafka-2` is the second address of KAFKA_BROKERS, `redis-5` the fifth of REDIS_CLUSTER_NODES.
import net from 'node:net';

export interface NodeDown {
  node: string;
  address: string;
  reason: string;
}

/** True when something accepts a TCP connection at `address` (host:port) within `timeoutMs`. */
export function accepts(address: string, timeoutMs = 500): Promise<boolean> {
  const at = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = net.connect({ host: address.slice(0, at), port: Number(address.slice(at + 1)) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Configured brokers that refuse connections or that the cluster's metadata no longer lists
 * (fenced after `broker.session.timeout.ms`). `live` is what describeCluster returned, or
 * undefined when no broker answered at all.
 */
export async function kafkaNodesDown(
  configured: string[],
  live: { host: string; port: number }[] | undefined,
): Promise<NodeDown[]> {
  const listed = new Set((live ?? []).map((b) => `${b.host}:${b.port}`));
  const down = await Promise.all(
    configured.map(async (address, i): Promise<NodeDown | undefined> => {
      const node = `kafka-${i + 1}`;
      if (!(await accepts(address))) return { node, address, reason: 'refuses connections' };
      if (live && configured.length > 1 && !listed.has(address))
        return { node, address, reason: 'not in the cluster metadata' };
      return undefined;
    }),
  );
  return down.filter((d): d is NodeDown => d !== undefined);
}

/**
 * Nodes that `CLUSTER NODES` (as seen by any reachable node) flags as failed or suspected
 * (`fail`, `fail?`), plus configured seeds that refuse connections.
 */
export async function redisNodesDown(
  configured: string[],
  clusterNodes: string | undefined,
): Promise<NodeDown[]> {
  const flagged = new Map<string, string>();
  for (const line of (clusterNodes ?? '').split('\n')) {
    const [, address, flags] = line.split(' ');
    if (!address || !flags) continue;
    const hostPort = address.split('@')[0]!;
    if (/(^|,)fail\??(,|$)/.test(flags))
      flagged.set(hostPort, flags.includes('fail?') ? 'suspected failed' : 'failed');
  }
  const down = await Promise.all(
    configured.map(async (address, i): Promise<NodeDown | undefined> => {
      const node = `redis-${i + 1}`;
      if (!(await accepts(address))) return { node, address, reason: 'refuses connections' };
      const reason = flagged.get(address);
      return reason ? { node, address, reason: `${reason} in the cluster's view` } : undefined;
    }),
  );
  return down.filter((d): d is NodeDown => d !== undefined);
}

/** The error a probe throws when its component is down: it still names the nodes that are. */
export class ComponentDownError extends Error {
  constructor(
    message: string,
    readonly nodesDown: NodeDown[],
  ) {
    super(message);
  }
}
