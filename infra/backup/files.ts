// File helpers of backup and restore: sizes, and moves that work across file systems.
import fs from 'node:fs';
import path from 'node:path';

/** Bytes of every file under `dir` (or of `dir` itself when it is a file). */
export function directoryBytes(dir: string): number {
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) return stat.size;
  return fs.readdirSync(dir).reduce((total, entry) => total + directoryBytes(path.join(dir, entry)), 0);
}

/** Moves `from` to `to` (a rename, or copy and delete when they are on different file systems). */
export function moveDirectory(from: string, to: string): void {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.rmSync(to, { recursive: true, force: true });
  try {
    fs.renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    fs.cpSync(from, to, { recursive: true });
    fs.rmSync(from, { recursive: true, force: true });
  }
}
