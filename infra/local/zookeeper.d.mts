import type { StackSettings } from './settings.mjs';
export function startZooKeeper(
  settings: StackSettings,
  port: number,
): Promise<{ port: number; startedPid: number }>;
export function stopZooKeeper(settings: StackSettings): Promise<void>;
