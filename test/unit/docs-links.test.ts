// Every reference in the README and docs/ resolves: each relative Markdown link names a file that
// exists (and, into a Markdown file, a heading it has), and each backticked repository path
// (`stream/sink/clickhouse-writer.ts`, `infra/kafka/topics.json:3`) names a file or folder of the
// repository. URLs, links to an anchor of the same page, and what exists only at run time (`.local/`,
// `dist/`, paths with placeholders such as `<n>` or `…`) are not checked.
// Code points at documentation the same way: a comment's `README, "Quickstart"` or
// `docs/auth.md, "Quotas"` must name a Markdown file that exists and a heading of it that begins with
// the quoted words.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** README.md and every Markdown file under docs/, as repository-relative paths. */
function documents(): string[] {
  const found = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found.sort();
}

/** The text outside fenced code blocks (commands and sample output are not references). */
function prose(markdown: string): { line: number; text: string }[] {
  let fenced = false;
  return markdown.split('\n').flatMap((text, i) => {
    if (/^\s*(```|~~~)/.test(text)) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: i + 1, text }];
  });
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

const anchorCache = new Map<string, Set<string>>();
/** The anchors of a Markdown file's headings (a repeated heading gets -1, -2, … as on GitHub). */
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of prose(fs.readFileSync(path.join(root, file), 'utf8'))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const base = headingAnchor(heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

const exists = (rel: string) => fs.existsSync(path.join(root, rel));

/** Runtime-only places: state, builds, dependencies. */
const runtimeOnly = /^(\.local|dist|node_modules|coverage)(\/|$)/;

/** The repository's top-level folders: a backticked path must start with one to count as a reference. */
const topLevel = new Set(
  fs
    .readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !runtimeOnly.test(e.name))
    .map((e) => e.name),
);

const pathExtension =
  /\.(ts|mts|mjs|js|json|md|sql|c|h|py|txt|toml|yaml|yml|xml|properties|service|example)$/;

/** A backticked span that reads as a repository path; undefined when it is something else. */
function repositoryPath(span: string): string | undefined {
  const withoutLine = span.replace(/:\d+(-\d+)?$/, '');
  if (!/^[A-Za-z0-9_.@\-/]+$/.test(withoutLine) || !withoutLine.includes('/')) return undefined;
  const first = withoutLine.split('/')[0]!;
  if (!topLevel.has(first)) return undefined;
  if (!withoutLine.endsWith('/') && !pathExtension.test(withoutLine)) return undefined;
  return withoutLine;
}

interface Broken {
  where: string;
  reference: string;
  why: string;
}

function brokenReferences(doc: string): Broken[] {
  const broken: Broken[] = [];
  const dir = path.posix.dirname(doc);
  for (const { line, text } of prose(fs.readFileSync(path.join(root, doc), 'utf8'))) {
    const where = `${doc}:${line}`;
    // Inline code is not a link target; links are read with code spans removed.
    const code = [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    for (const span of code) {
      const rel = repositoryPath(span);
      if (rel && !exists(rel)) broken.push({ where, reference: span, why: 'no such file or folder' });
    }
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const m of withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
      const [file, anchor] = target.split('#') as [string, string | undefined];
      const rel = path.posix.normalize(path.posix.join(dir, decodeURIComponent(file)));
      if (runtimeOnly.test(rel)) continue;
      if (!exists(rel)) {
        broken.push({ where, reference: target, why: 'no such file or folder' });
      } else if (anchor && rel.endsWith('.md') && !anchorsOf(rel).has(decodeURIComponent(anchor))) {
        broken.push({ where, reference: target, why: `no heading with anchor #${anchor}` });
      }
    }
  }
  return broken;
}

/** Source files that may point at documentation sections, outside dependencies, builds and state. */
const codeExtension = /\.(ts|mts|mjs|js|sql|c|h|py|toml|yaml|yml|xml|txt|service)$/;
const skippedFolders = new Set(['node_modules', 'dist', 'coverage', '.git', '.local']);
/** This file, whose examples are references on purpose. */
const thisFile = 'test/unit/docs-links.test.ts';
/**
 * Files whose bytes are hashed, so a comment edit has a cost: migrations are checksummed once
 * applied (infra/clickhouse/migrate.ts), and the ZooKeeper pom's hash keys its jar cache.
 */
const hashed = /^(infra\/clickhouse\/migrations\/|infra\/local\/zookeeper\/pom\.xml$)/;
function codeFiles(dir = ''): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir || '.'), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!skippedFolders.has(entry.name) && !entry.isSymbolicLink()) found.push(...codeFiles(rel));
    } else if (codeExtension.test(entry.name) && rel !== thisFile && !hashed.test(rel)) found.push(rel);
  }
  return found.sort();
}

/** `README, "Scaling out"`, `docs/auth.md "Quotas"`, `` `../../README.md`, "ClickHouse" ``. */
const sectionReference = /(?<![\w/.-])((?:\.\.\/)*(?:[\w-]+\/)*(?:README|[\w-]+\.md))`?,?\s+"([^"\n]+)"/g;
/** The operational contract lives outside the repository; its sections are not checked here. */
const outsideRepository = new Set(['CONTRACT.md']);

/** The repository file a reference's file part names, from the referring file's folder. */
function referencedFile(name: string, from: string): string | undefined {
  const file = name === 'README' ? 'README.md' : name;
  const candidates = [
    path.posix.normalize(path.posix.join(path.posix.dirname(from), file)),
    path.posix.normalize(file),
    `docs/${file}`,
  ];
  return candidates.find((rel) => !rel.startsWith('..') && exists(rel));
}

const headingsCache = new Map<string, string[]>();
/** A Markdown file's headings, lower case, without backticks. */
function headingsOf(file: string): string[] {
  const cached = headingsCache.get(file);
  if (cached) return cached;
  const headings = prose(fs.readFileSync(path.join(root, file), 'utf8')).flatMap(({ text }) => {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    return heading ? [heading[1]!.replace(/`/g, '').toLowerCase()] : [];
  });
  headingsCache.set(file, headings);
  return headings;
}

/** The section references of one source file's text that name no existing file or heading. */
function brokenSectionReferences(file: string, text: string): Broken[] {
  const lines = text.split('\n');
  const broken: Broken[] = [];
  lines.forEach((line, i) => {
    for (const m of line.matchAll(/(?<![\w/.-])docs\/[\w./-]+\.md/g)) {
      if (!exists(m[0])) broken.push({ where: `${file}:${i + 1}`, reference: m[0], why: 'no such file' });
    }
    // A reference may wrap: `(docs/auth.md,` at a line's end, `"Quotas")` on the comment's next line.
    const next = lines[i + 1]?.replace(/^\s*(\/\/|--|#|\*)?\s*/, '') ?? '';
    const joined = /(README|\.md)`?,?\s*$/.test(line) ? `${line} ${next}` : line;
    for (const m of joined.matchAll(sectionReference)) {
      if (m.index! >= line.length) continue;
      const [reference, name, section] = m as unknown as [string, string, string];
      if (outsideRepository.has(path.posix.basename(name))) continue;
      const where = `${file}:${i + 1}`;
      const target = referencedFile(name, file);
      if (!target) {
        broken.push({ where, reference, why: 'no such file' });
        continue;
      }
      const wanted = section.replace(/`/g, '').toLowerCase();
      if (!headingsOf(target).some((heading) => heading.startsWith(wanted))) {
        broken.push({ where, reference, why: `${target} has no heading beginning "${section}"` });
      }
    }
  });
  return broken;
}

describe('documentation references', () => {
  it('happy: recognises repository paths and heading anchors as GitHub writes them', () => {
    expect(repositoryPath('stream/sink/clickhouse-writer.ts')).toBe('stream/sink/clickhouse-writer.ts');
    expect(repositoryPath('infra/kafka/topics.json:3')).toBe('infra/kafka/topics.json');
    expect(repositoryPath('docs/')).toBe('docs/');
    expect(repositoryPath('dist/…/main.js')).toBeUndefined();
    expect(repositoryPath('.local/logs/stream.log')).toBeUndefined();
    expect(repositoryPath('npm run stack')).toBeUndefined();
    expect(repositoryPath('listings/')).toBeUndefined();
    expect(headingAnchor('Pricing (`GET /analytics/pricing/{city}/{type}/{period}`)')).toBe(
      'pricing-get-analyticspricingcitytypeperiod',
    );
    expect(headingAnchor('SSRF policy: outbound calls (webhooks and image checks)')).toBe(
      'ssrf-policy-outbound-calls-webhooks-and-image-checks',
    );
  });

  it.each(documents())('error: every link and repository path in %s resolves', (doc) => {
    expect(brokenReferences(doc)).toEqual([]);
    // Prose references such as (README, "Ports and state"), outside code blocks and code spans.
    const markdown = fs.readFileSync(path.join(root, doc), 'utf8');
    const lines: string[] = markdown.split('\n').map(() => '');
    for (const { line, text } of prose(markdown)) lines[line - 1] = text.replace(/`[^`]*`/g, '');
    expect(brokenSectionReferences(doc, lines.join('\n'))).toEqual([]);
  });

  it('happy: reads section references in code as they are written, wrapped or not', () => {
    const refs = (text: string) =>
      brokenSectionReferences('stream/x.ts', text).map((b) => `${b.reference} → ${b.why}`);
    expect(refs('// (README, "Ports and state")')).toEqual([]);
    expect(refs('// docs/auth.md "Quotas" and `docs/analytics.md`, "Velocity"')).toEqual([]);
    expect(refs('// see docs/auth.md,\n// "Quotas").')).toEqual([]);
    expect(refs('// CONTRACT.md, "Batches"')).toEqual([]);
    expect(refs('// (README, "No such section")')).toEqual([
      'README, "No such section" → README.md has no heading beginning "No such section"',
    ]);
    expect(refs('// docs/nothing.md, "Quotas"')).toEqual([
      'docs/nothing.md → no such file',
      'docs/nothing.md, "Quotas" → no such file',
    ]);
    expect(refs('// why: docs/decisions/0009-none.md')).toEqual([
      'docs/decisions/0009-none.md → no such file',
    ]);
  });

  it('error: every section reference in code names an existing heading', () => {
    const broken = codeFiles().flatMap((file) =>
      brokenSectionReferences(file, fs.readFileSync(path.join(root, file), 'utf8')),
    );
    expect(broken).toEqual([]);
  });
});
