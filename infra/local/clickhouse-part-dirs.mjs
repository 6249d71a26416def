// Part directories spread over the file system. On ext4 without a journal (this machine's root file
// system; common on cloud VMs), creating a file skips every free inode of its block group that was
// deleted in the last minute (six while its inode table block is not yet written back), reading the
// inode table to find out (fs/ext4/ialloc.c, `recently_deleted`). ClickHouse writes each part as a
// directory of ~10 files (one part per target table and insert: twelve per insert into `listings`)
// and removes merged-away parts all the time (8 minutes after a merge); ext4 keeps a directory's
// subdirectories in its own block group when it can, so every part of a table is created among its
// own recently deleted predecessors, and a file creation can scan thousands of inodes.
//
// `chattr +T` marks a table's directory as the top of a directory hierarchy: ext4's Orlov allocator
// then puts each new part directory, and so its files, in a block group with many free inodes,
// away from the last parts' (docs/decisions/0013-clickhouse-part-directories.md).
// Journaled ext4 never makes the check, and other file systems refuse the flag: either way nothing
// changes, so a refusal is only logged. Tables created after the stack started (a scratch database)
// get the flag at the next start.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { log } from './processes.mjs';

const run = promisify(execFile);

/** The table directories under a server's data directory (Atomic databases: store/<xyz>/<uuid>/). */
export function tableDirectories(dataDir) {
  const store = path.join(dataDir, 'store');
  if (!fs.existsSync(store)) return [];
  return fs
    .readdirSync(store, { withFileTypes: true })
    .filter((prefix) => prefix.isDirectory())
    .flatMap((prefix) =>
      fs
        .readdirSync(path.join(store, prefix.name), { withFileTypes: true })
        .filter((table) => table.isDirectory())
        .map((table) => path.join(store, prefix.name, table.name)),
    );
}

/** Marks every table directory of `dataDir` with ext4's top-of-hierarchy flag; returns how many. */
export async function spreadPartDirectories(dataDir) {
  const dirs = tableDirectories(dataDir);
  if (dirs.length === 0) return 0;
  try {
    await run('chattr', ['+T', ...dirs]);
    return dirs.length;
  } catch (error) {
    const reason = String(error.stderr || error.message).split('\n')[0];
    log('clickhouse', `part directories not spread (${reason}); only no-journal ext4 needs it`);
    return 0;
  }
}
