import type { StackSettings } from './settings.mjs';
export function startClickHouse(settings: StackSettings): Promise<{ url: string; startedPid: number }>;
export function stopClickHouse(settings: StackSettings): Promise<void>;
