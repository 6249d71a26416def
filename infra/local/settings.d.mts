export const repoRoot: string;
export interface StackSettings {
  profile: 'start' | 'test';
  stateDir: string;
  cacheDir: string;
  logDir: string;
  port: number;
  kafka: { external: string; port: number; controllerPort: number; version: string; heapMb: number };
  clickhouse: { external: string; httpPort: number; tcpPort: number };
  redis: { external: string; port: number; maxmemoryMb: number };
}
export function readSettings(
  env?: NodeJS.ProcessEnv,
  options?: { profile?: 'start' | 'test' },
): StackSettings;
export function serviceEnv(settings: StackSettings): Record<string, string>;
