import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** The suite's stream worker's /metrics, /livez and /readyz listener. */
    streamMetricsUrl: string;
  }
}
