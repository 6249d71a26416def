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

/**
 * Makes `to` a tree of hard links to the files under `from` (a copy where links cannot be made:
 * another file system). Backup files are never modified in place, so a link is as good as a copy
 * and costs nothing for a base backup of any size.
 */
export function linkTree(from: string, to: string): void {
  if (!fs.statSync(from).isDirectory()) {
    try {
      fs.linkSync(from, to);
    } catch (error) {
      if (!['EXDEV', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      fs.copyFileSync(from, to);
    }
    return;
  }
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from)) linkTree(path.join(from, entry), path.join(to, entry));
}
