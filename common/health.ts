// Readiness of the parts a process depends on (contract, "Health"). Each check is cheap and
// bounded; results are cached for a second so a busy load balancer cannot hammer the backends.
// The reports hold component names, lag and error texts: HTTP shows them to operators only
// (common/http/health-routes.ts); every change of a component's state is logged instead.
import { ComponentDownError, type NodeDown } from './health-nodes.ts';
import type { Logger } from './logger.ts';

export interface ComponentStatus {
  status: 'ok' | 'down';
  error?: string;
  [key: string]: unknown;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  failing?: string[];
  /** Nodes of clustered components that are down (`kafka-2`, `redis-5`), whatever the status. */
  down?: string[];
  components: Record<string, ComponentStatus>;
}

export type Probe = () => Promise<Record<string, unknown> | void>;

export interface HealthCheck {
  report(): Promise<HealthReport>;
}

export function createHealthCheck(
  probes: Record<string, Probe>,
  {
    timeoutMs = 2_000,
    cacheMs = 1_000,
    logger,
  }: { timeoutMs?: number; cacheMs?: number; logger?: Logger } = {},
) {
  let cached: { at: number; report: Promise<HealthReport> } | undefined;
  const lastError = new Map<string, string>(); // components last seen down, with their error
  const lastNodes = new Map<string, string>(); // nodes last seen down, per component

  function logChanges(entries: [string, ComponentStatus][]): void {
    for (const [name, status] of entries) {
      const nodes = ((status.nodes_down ?? []) as NodeDown[]).map(
        (n) => `${n.node} ${n.address} (${n.reason})`,
      );
      const key = `${name}:${nodes.join(',')}`;
      const nodesBefore = lastNodes.get(name) ?? `${name}:`;
      if (key !== nodesBefore) {
        if (nodes.length) logger?.warn('health: nodes down', { component: name, nodes });
        else logger?.info('health: every node up again', { component: name });
        lastNodes.set(name, key);
      }
      const before = lastError.get(name);
      if (status.status === 'ok') {
        if (before !== undefined) logger?.info('health: component ok again', { component: name });
        lastError.delete(name);
      } else if (before !== status.error) {
        logger?.warn('health: component down', { component: name, error: status.error });
        lastError.set(name, status.error ?? '');
      }
    }
  }

  async function run(): Promise<HealthReport> {
    const entries = await Promise.all(
      Object.entries(probes).map(async ([name, probe]): Promise<[string, ComponentStatus]> => {
        try {
          const extra = await withTimeout(probe(), timeoutMs, name);
          return [name, { status: 'ok', ...(extra ?? {}) }];
        } catch (error) {
          const status: ComponentStatus = {
            status: 'down',
            error: error instanceof Error ? error.message : String(error),
          };
          if (error instanceof ComponentDownError && error.nodesDown.length)
            status.nodes_down = error.nodesDown;
          return [name, status];
        }
      }),
    );
    logChanges(entries);
    const components = Object.fromEntries(entries);
    const failing = entries.filter(([, s]) => s.status !== 'ok').map(([name]) => name);
    const down = entries.flatMap(([, s]) => ((s.nodes_down ?? []) as NodeDown[]).map((n) => n.node));
    return {
      ...(failing.length ? { status: 'unavailable', failing } : { status: 'ok' }),
      ...(down.length ? { down } : {}),
      components,
    };
  }

  return {
    report(): Promise<HealthReport> {
      if (!cached || Date.now() - cached.at > cacheMs) cached = { at: Date.now(), report: run() };
      return cached.report;
    },
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number, name: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
