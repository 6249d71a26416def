import type { StackSettings } from './settings.mjs';
export function startRedis(settings: StackSettings): Promise<{ url: string; startedPid: number }>;
export function stopRedis(settings: StackSettings): Promise<void>;
export function pingRedis(port: number): Promise<boolean>;
