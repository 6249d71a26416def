export const repoRoot: string;
export interface StackSettings {
  profile: 'start' | 'test';
  topology: 'single' | 'cluster';
  /** RLS_PORT_BASE, or the profile's default base. */
  portBase: number;
  stateDir: string;
  cacheDir: string;
  portBase: number;
  logDir: string;
  port: number;
  streamMetricsPort: number;
  imagesMetricsPort: number;
  kafka: {
    external: string;
    port: number;
    controllerPort: number;
    nodes: { id: number; port: number; controllerPort: number }[];
    version: string;
    heapMb: number;
  };
  clickhouse: { external: string; httpPort: number; tcpPort: number; shards: number };
  redis: { external: string; port: number; ports: number[]; maxmemoryMb: number };
}
/** The environment the launcher was started with (for the processes and scripts it runs). */
export function inheritedEnvironment(): NodeJS.ProcessEnv;
export function readSettings(
  env?: NodeJS.ProcessEnv,
  options?: { profile?: 'start' | 'test' },
): StackSettings;
export function serviceEnv(settings: StackSettings): Record<string, string>;
export function stackPorts(settings: StackSettings): number[];
export function pidFile(settings: StackSettings, component: string, n?: number): string;
