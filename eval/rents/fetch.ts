// npm run rents:fetch: brings the real-rent datasets of sources.ts into RENTS_DATA_DIR (default
// <RLS_STATE_DIR>/rents, outside the repository) and converts each to <name>.csv in the shape of
// shape.ts, moved onto Dar es Salaam as a block. Each source is read at its pinned commit from a
// Git copy in RENTS_SOURCES_DIR when there is one, else cloned from GitHub into
// RENTS_DATA_DIR/sources. Files already converted are kept (delete one to convert it again).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { rentsEnv } from './env.ts';
import { CSV_HEADER, moveOntoDar, toCsvLine } from './shape.ts';
import { rentSources, type RentSource } from './sources.ts';

const git = (args: string[]) => execFileSync('git', args, { maxBuffer: 1 << 30, encoding: 'utf8' });

/** A git directory holding the source's commit. */
function gitDirOf(source: RentSource): string {
  const folder = source.repo.replace('/', '+');
  const candidates = rentsEnv.RENTS_SOURCES_DIR
    ? [
        path.join(rentsEnv.RENTS_SOURCES_DIR, folder, 'repo'),
        path.join(rentsEnv.RENTS_SOURCES_DIR, folder, '.git'),
      ]
    : [];
  const clone = path.join(rentsEnv.dataDir, 'sources', folder);
  candidates.push(clone);
  for (const dir of candidates) {
    if (!fs.existsSync(dir)) continue;
    try {
      git(['--git-dir', dir, 'cat-file', '-e', `${source.commit}^{commit}`]);
      return dir;
    } catch {
      // not this copy: it lacks the commit
    }
  }
  process.stderr.write(`[rents] cloning ${source.repo} into ${clone}\n`);
  fs.rmSync(clone, { recursive: true, force: true });
  git(['clone', '--bare', '--quiet', `https://github.com/${source.repo}.git`, clone]);
  return clone;
}

fs.mkdirSync(rentsEnv.dataDir, { recursive: true });
for (const source of rentSources) {
  const out = path.join(rentsEnv.dataDir, `${source.name}.csv`);
  if (fs.existsSync(out)) {
    process.stdout.write(`${source.name}: ${out} (already converted)\n`);
    continue;
  }
  const dir = gitDirOf(source);
  const files = source.files.map((file) => ({
    path: file,
    text: git(['--git-dir', dir, 'show', `${source.commit}:${file}`]),
  }));
  const rows = moveOntoDar(source.convert(files)).sort(
    (a, b) => a.listedAt - b.listedAt || (a.id < b.id ? -1 : 1),
  );
  fs.writeFileSync(`${out}.tmp`, [CSV_HEADER, ...rows.map(toCsvLine)].join('\n') + '\n');
  fs.renameSync(`${out}.tmp`, out);
  process.stdout.write(
    `${source.name}: ${rows.length} listings → ${out}\n  ${source.repo}@${source.commit.slice(0, 7)}, ${source.licence}\n`,
  );
}
