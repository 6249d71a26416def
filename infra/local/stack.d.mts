import type { StackSettings } from './settings.mjs';
export interface RunningStack {
  env: Record<string, string>;
  /** Component name → node numbers this start started. */
  started: Record<string, number[]>;
  stop(): Promise<void>;
}
export function namespaceEnv(env: NodeJS.ProcessEnv): Record<string, string>;
export function startStack(settings: StackSettings, env?: NodeJS.ProcessEnv): Promise<RunningStack>;
export function stopComponents(settings: StackSettings, started?: Record<string, number[]>): Promise<void>;
