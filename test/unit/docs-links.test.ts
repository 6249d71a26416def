// Every reference in the README and docs/ resolves: each relative Markdown link names a file that
// exists (and, into a Markdown file, a heading it has), and each backticked repository path
// (`stream/sink/clickhouse-writer.ts`, `infra/kafka/topics.json:3`) names a file or folder of the
// repository. URLs, links to an anchor of the same page, and what exists only at run time (`.local/`,
// `dist/`, paths with placeholders such as `<n>` or `…`) are not checked.
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
  });
});
