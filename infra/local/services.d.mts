import type { ChildProcess } from 'node:child_process';
export const serviceNode: string;
export const serviceFlags: Record<'gateway' | 'stream' | 'images', string[]>;
export function spawnService(
  name: 'gateway' | 'stream' | 'images',
  env: NodeJS.ProcessEnv,
  options?: { stdio?: 'inherit' | 'pipe' | 'ignore' },
): ChildProcess;
export function waitForHealth(
  port: number,
  options?: { timeoutMs?: number; children?: ChildProcess[] },
): Promise<void>;
export function stopChildren(children: ChildProcess[], timeoutMs?: number): Promise<void>;
