// An incremental backup and the backups it rests on. ClickHouse resolves the chain itself when it
// reads an incremental backup (each one names its base), but every backup of the chain must be
// there: this finds them, or says which one is missing, before anything is started or restored.
import fs from 'node:fs';
import path from 'node:path';
import { type Manifest, readManifest } from './manifest.ts';

export interface ChainLink {
  /** The backup directory (absolute). */
  dir: string;
  manifest: Manifest;
}

/** A ClickHouse shard's backup of one link: the name ClickHouse knows it by, and where its files are. */
export interface ShardCopy {
  name: string;
  dir: string;
}

/**
 * Where the base of `link` is: where it was when the incremental was taken, or beside the
 * incremental (a chain moved or copied as a whole), whichever holds the backup with the recorded id.
 */
function findBase(link: ChainLink): ChainLink {
  const base = link.manifest.base!;
  const candidates = [...new Set([base.dir, path.join(path.dirname(link.dir), path.basename(base.dir))])];
  const found: string[] = [];
  for (const dir of candidates) {
    if (!fs.existsSync(path.join(dir, 'manifest.json'))) continue;
    const manifest = readManifest(dir);
    if (manifest.id === base.id) return { dir, manifest };
    found.push(`${dir} holds another backup (id ${manifest.id ?? 'none'})`);
  }
  throw new Error(
    `backup ${link.dir} is incremental on the backup ${base.id} taken at ${base.created_at} in ` +
      `${base.dir}, which is missing${found.length ? ` (${found.join('; ')})` : ''}: put that backup ` +
      'back at that path or beside this one (a restore needs every backup of the chain)',
  );
}

/** The backup in `dir` and every base under it, newest first, each with its ClickHouse shards present. */
export function backupChain(dir: string): ChainLink[] {
  const chain: ChainLink[] = [{ dir, manifest: readManifest(dir) }];
  while (chain.at(-1)!.manifest.base) {
    if (chain.length > 1000) throw new Error(`backup ${dir}: its chain of bases does not end`);
    chain.push(findBase(chain.at(-1)!));
  }
  for (const link of chain)
    for (const shard of link.manifest.clickhouse.shards)
      if (!fs.existsSync(path.join(link.dir, shard.path)))
        throw new Error(`backup ${link.dir} lacks its ClickHouse shard ${shard.n} (${shard.path})`);
  return chain;
}

/** Shard `n` of every link of the chain, newest first, as ClickHouse must find them to read the first. */
export function shardCopies(chain: ChainLink[], n: number): ShardCopy[] {
  return chain.map((link) => {
    const shard = link.manifest.clickhouse.shards.find((s) => s.n === n);
    if (!shard) throw new Error(`backup ${link.dir} holds no ClickHouse shard ${n}`);
    // A backup taken before shards were named is no base; read on its own, any name will do.
    const name = shard.name ?? (chain.length === 1 ? `rls-restore-${Date.now()}-${n}` : undefined);
    if (!name)
      throw new Error(
        `backup ${link.dir} was taken before incremental backups existed and cannot be a base: take a full backup`,
      );
    return { name, dir: path.join(link.dir, shard.path) };
  });
}
