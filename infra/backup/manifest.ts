// The manifest of a backup (manifest.json in the backup directory, and the last stdout line of
// `npm run backup`): what was backed up from where, at which migration and offsets, and how big.
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

export const MANIFEST_FORMAT = 'rls-backup/1';
export const MANIFEST_FILE = 'manifest.json';

const offsets = z.record(z.string(), z.record(z.string(), z.record(z.string(), z.string())));

/** The backup an incremental one was taken on (its ClickHouse part holds only what changed since). */
const baseSchema = z.object({
  id: z.string(),
  /** Where the base was when this backup was taken (absolute). */
  dir: z.string(),
  created_at: z.string(),
});
export type BackupBase = z.infer<typeof baseSchema>;

export const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  /** Identifies the backup, so that an incremental one finds exactly its base. */
  id: z.string().optional(),
  /** Set on an incremental backup. */
  base: baseSchema.optional(),
  created_at: z.string(),
  completed_at: z.string(),
  duration_ms: z.number(),
  topology: z.enum(['single', 'cluster']),
  versions: z.object({ service: z.string(), clickhouse: z.string(), redis: z.string() }),
  migration: z.object({ version: z.number(), name: z.string() }),
  database: z.string(),
  /** Consumer group → topic → partition → committed offset, read before the stores were copied. */
  offsets,
  kafka: z.object({
    topics: z.array(
      z.object({
        name: z.string(),
        partitions: z.number(),
        replication_factor: z.number(),
        configs: z.record(z.string(), z.string()),
      }),
    ),
  }),
  clickhouse: z.object({
    shards: z.array(
      z.object({
        n: z.number(),
        /** The name ClickHouse knows the shard's backup by (File('<name>')); an incremental on it names it. */
        name: z.string().optional(),
        path: z.string(),
        bytes: z.number(),
        tables: z.number(),
        rows: z.number(),
      }),
    ),
  }),
  redis: z.object({
    nodes: z.array(
      z.object({ node: z.string(), slots: z.string().optional(), path: z.string(), bytes: z.number() }),
    ),
  }),
  /** Bytes of the whole backup (ClickHouse shards and Redis snapshots; of an incremental, its own). */
  bytes: z.number(),
});
export type Manifest = z.infer<typeof manifestSchema>;

export function writeManifest(dir: string, manifest: Manifest): void {
  fs.writeFileSync(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** The manifest of the backup in `dir`, or an error saying why it is not one. */
export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(file)) throw new Error(`${dir} holds no backup (${MANIFEST_FILE} is missing)`);
  const parsed = manifestSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new Error(
      `${file} is not a manifest of this service's backups: ${parsed.error.issues
        .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        .join('; ')}`,
    );
  return parsed.data;
}
