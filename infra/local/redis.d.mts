import type { StackSettings } from './settings.mjs';
export function startRedis(
  settings: StackSettings,
): Promise<{ url: string; startedPid: number; startedNodes: number[] }>;
export function stopRedis(settings: StackSettings, nodes?: number[]): Promise<void>;
export function pingRedis(port: number): Promise<boolean>;
/** One RESP command on a fresh connection; resolves with the raw reply. */
export function redisCommand(port: number, args: string[], timeoutMs?: number): Promise<string>;
