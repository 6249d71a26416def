export function readPid(pidFile: string): number;
export function isAlive(pid: number): boolean;
