import type { StackSettings } from './settings.mjs';
export function installClients(
  settings: StackSettings,
): Promise<{ python: string; pythonPath: string; typescriptEntry: string }>;
