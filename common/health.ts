// Readiness of the parts a process depends on (contract, "Health"). Each check is cheap and
// bounded; results are cached for a second so a busy load balancer cannot hammer the backends.
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
  { timeoutMs = 2_000, cacheMs = 1_000 } = {},
) {
  let cached: { at: number; report: Promise<HealthReport> } | undefined;

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
