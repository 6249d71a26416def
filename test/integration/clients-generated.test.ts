// The clients' generated files (clients/generate.ts) against the running service's document: the
// test fails when one is stale. `npm run clients:generate` runs it with RLS_WRITE_GENERATED=1,
// which writes them instead.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { generatedFiles } from '../../clients/generate.ts';
import { repoRoot } from '../../infra/local/settings.mjs';

describe('clients: generated files', () => {
  it('match what /api/v1/openapi.json generates now', async () => {
    const response = await fetch(`${inject('baseUrl')}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const files = await generatedFiles((await response.json()) as Record<string, unknown>);
    const write = process.env.RLS_WRITE_GENERATED === '1';
    const stale: string[] = [];
    for (const file of files) {
      const current = fs.existsSync(file.path) ? fs.readFileSync(file.path, 'utf8') : undefined;
      if (current === file.content) continue;
      if (write) fs.writeFileSync(file.path, file.content);
      else stale.push(path.relative(repoRoot, file.path));
    }
    expect(stale, 'stale generated files: run `npm run clients:generate`').toEqual([]);
  });
});
