import type { StackSettings } from './settings.mjs';
export function startRedis(
  settings: StackSettings,
): Promise<{ url: string; startedPid: number; startedNodes: number[] }>;
export function stopRedis(settings: StackSettings, nodes?: number[]): Promise<void>;
export function pingRedis(port: number): Promise<'pong' | 'loading' | null>;
export function waitForRedis(
  name: string,
  port: number,
  options?: { logFile?: string; pid?: number },
): Promise<void>;
/** One RESP command on a fresh connection; resolves with the raw reply. */
export function redisCommand(port: number, args: string[], timeoutMs?: number): Promise<string>;
/** Each node's port and the directory holding its data (AOF, RDB dump, nodes.conf). */
export function redisDirectories(settings: StackSettings): { n: number; port: number; dir: string }[];
