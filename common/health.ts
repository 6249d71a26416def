// Readiness of the parts a process depends on (contract, "Health"). Each check is cheap and
// bounded; results are cached for a second so a busy load balancer cannot hammer the backends.
// The reports hold component names, lag and error texts: HTTP shows them to operators only
// (common/http/health-routes.ts); every change of a component's state is logged instead.
import type { Logger } from './logger.ts';

export interface ComponentStatus {
  status: 'ok' | 'down';
  error?: string;
  [key: string]: unknown;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  failing?: string[];
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

  function logChanges(entries: [string, ComponentStatus][]): void {
    for (const [name, status] of entries) {
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
          return [name, { status: 'down', error: error instanceof Error ? error.message : String(error) }];
        }
      }),
    );
    logChanges(entries);
    const components = Object.fromEntries(entries);
    const failing = entries.filter(([, s]) => s.status !== 'ok').map(([name]) => name);
    return failing.length ? { status: 'unavailable', failing, components } : { status: 'ok', components };
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
