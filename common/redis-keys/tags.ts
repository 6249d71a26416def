// Hash tags: where a key lives on a Redis Cluster. Redis places a key by the text between its first
// `{` and `}`, so every key is written as `<prefix>{<tag>}:<name>` and keys with one tag share a
// slot (a script or transaction may touch them together). The tags spread the key space over the
// masters: an account's families under its account tag, an API key's under its key tag, the
// stream's owners under listing-id buckets, and a family every account writes into (an index, a
// queue) as REDIS_GLOBAL_PARTS parts, each with its own tag. On a single node a tag is only text.
//
// The prefix itself carries no braces (the environment refuses one that does), so the tag below is
// always the first one in a key.

/** Keys of one account: its record, quotas, idempotency records, batches, snapshots, … */
export const accountSpace = (prefix: string, accountId: string) => `${prefix}{a:${accountId}}:`;

/** Keys of one API key, named by the SHA-256 of the key (what a request presents). */
export const apiKeySpace = (prefix: string, keyHash: string) => `${prefix}{k:${keyHash}}:`;

/** Keys of one bucket of listing ids (the stream's owners). */
export const listingBucketSpace = (prefix: string, bucket: string) => `${prefix}{o:${bucket}}:`;

/** Keys of part `part` (0 … parts-1) of the families every account writes into. */
export const partSpace = (prefix: string, part: number) => `${prefix}{g:${part}}:`;

/** Every part's space, for readers that visit every part. */
export const allPartSpaces = (prefix: string, parts: number) =>
  Array.from({ length: parts }, (_, part) => partSpace(prefix, part));

/** The part a value (an account id, a delivery id, …) belongs to: FNV-1a of its text, mod `parts`. */
export function partOf(value: string, parts: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % parts;
}

/** The default of REDIS_GLOBAL_PARTS. */
export const DEFAULT_GLOBAL_PARTS = 16;
