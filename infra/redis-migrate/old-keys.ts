// Finding the previous release's keys: SCAN MATCH patterns (Redis glob syntax) and a scan of every
// master that hands over one batch at a time, so that a store of millions of keys is never held in
// memory at once (scanAll in common/clients/redis.ts collects them all).
import type { Cluster, Redis } from 'ioredis';
import { isCluster } from '../../common/clients/redis.ts';

/** `text` as a glob that matches exactly it (a prefix may hold `*`, `?`, `[` or `\`). */
export const literalGlob = (text: string): string => text.replace(/[*?[\]\\]/g, '\\$&');

/** A test of whole key names against a Redis glob: `*`, `?`, `[abc]`, `[^a-z]`, `\x`. */
export function globMatcher(glob: string): (key: string) => boolean {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') source += '[\\s\\S]*';
    else if (c === '?') source += '[\\s\\S]';
    else if (c === '\\' && i + 1 < glob.length) source += escapeRegex(glob[++i]!);
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        source += '\\[';
        continue;
      }
      let set = glob.slice(i + 1, end);
      const negated = set.startsWith('^');
      if (negated) set = set.slice(1);
      source += `[${negated ? '^' : ''}${set.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else source += escapeRegex(c);
  }
  const regex = new RegExp(`^${source}$`);
  return (key) => regex.test(key);
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** SCAN MATCH `pattern` over every master (one node: that node), one reply's keys at a time. */
export async function* scanBatches(redis: Redis, pattern: string, count = 1_000): AsyncGenerator<string[]> {
  const nodes = isCluster(redis) ? (redis as unknown as Cluster).nodes('master') : [redis];
  for (const node of nodes) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      if (keys.length) yield keys;
      cursor = next;
    } while (cursor !== '0');
  }
}
