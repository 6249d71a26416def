// `npm run docs:redis`: writes the key-family table of docs/redis.md from the registry
// (common/redis-keys/registry.ts). test/unit/redis-key-modules.test.ts fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { keyFamilyTable, pageWithKeyFamilyTable } from '../../common/redis-keys/family.ts';
import { keyFamilies } from '../../common/redis-keys/registry.ts';

const page = fileURLToPath(new URL('../../docs/redis.md', import.meta.url));
writeFileSync(page, pageWithKeyFamilyTable(readFileSync(page, 'utf8'), keyFamilyTable(keyFamilies)));
process.stdout.write(`docs/redis.md: ${keyFamilies.length} key families\n`);
