import type { StackSettings } from './settings.mjs';
export function ensureSchemathesis(settings: StackSettings): Promise<string>;
