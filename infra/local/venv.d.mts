import type { StackSettings } from './settings.mjs';
export function ensureVenv(settings: StackSettings, name: string, requirements: string): Promise<string>;
