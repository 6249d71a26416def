// The naming rules of `npm run redis:migrate` (infra/redis-migrate/), without Redis: the previous
// release's prefix, Redis glob patterns, the report, and the registry's promise that a key once
// moved is never found by an old pattern again (else every later run would move it once more).
import { describe, expect, it } from 'vitest';
import { keyFamilies } from '../../common/redis-keys/registry.ts';
import { previousPrefix } from '../../infra/redis-migrate/env.ts';
import { globMatcher, literalGlob } from '../../infra/redis-migrate/old-keys.ts';
import { migrationReport } from '../../infra/redis-migrate/report.ts';

const withLegacy = keyFamilies.filter((f) => f.legacy);
/** The layouts upgraded from: one node keeps its prefix; a cluster had it as a hash tag. */
const layouts = [
  { topology: 'one node', prefix: 'rls:', previous: previousPrefix('rls:', false) },
  { topology: 'cluster', prefix: 'rls:', previous: previousPrefix('rls:', true) },
];

describe('redis:migrate names', () => {
  it('happy: the previous prefix is the configured one on one node and its hash tag on a cluster', () => {
    expect(previousPrefix('rls:', false)).toBe('rls:');
    expect(previousPrefix('rls:', true)).toBe('{rls:}');
    expect(previousPrefix('{rls:}', true)).toBe('{rls:}');
  });

  it('happy: old patterns match as SCAN MATCH does, and a prefix is matched literally', () => {
    const quota = globMatcher(`${literalGlob('{rls:}')}quota:*`);
    expect(quota('{rls:}quota:a1:live:2026-01-01')).toBe(true);
    expect(quota('rls:{a:a1}:quota:a1:live:2026-01-01')).toBe(false);
    expect(quota('{rls:}quotas')).toBe(false);
    expect(globMatcher(`${literalGlob('p*[x]:')}k?y:[ab]:[^c]`)('p*[x]:key:a:d')).toBe(true);
    expect(globMatcher(`${literalGlob('p*[x]:')}k?y:[ab]:[^c]`)('pp[x]:key:a:d')).toBe(false);
    expect(globMatcher(`${literalGlob('p*[x]:')}k?y:[ab]:[^c]`)('p*[x]:key:a:c')).toBe(false);
  });

  it('error: no family of the new layout is named so that an old pattern finds it', () => {
    const found = layouts.flatMap(({ topology, prefix, previous }) =>
      keyFamilies
        .filter((f) => f.tag !== 'prefix')
        .flatMap((f) =>
          withLegacy
            .filter((old) => globMatcher(literalGlob(previous) + old.legacy!.pattern)(f.build(prefix)))
            .map(
              (old) =>
                `${topology}: ${f.build(prefix)} (${f.name}) matches ${old.legacy!.pattern} (${old.name})`,
            ),
        ),
    );
    expect(found).toEqual([]);
  });

  it("error: a family still in the previous layout is not taken by another family's migration", () => {
    const taken = keyFamilies
      .filter((f) => f.tag === 'prefix')
      .flatMap((f) => {
        const name = f.build('rls:');
        return withLegacy
          .filter(
            (old) => old !== f && old.type === f.type && globMatcher(`rls:${old.legacy!.pattern}`)(name),
          )
          .filter((old) => old.legacy!.move || old.legacy!.rename!('rls:', name.slice(4), 16) !== null)
          .map((old) => `${name} (${f.name}) would be moved by ${old.name}`);
      });
    expect(taken).toEqual([]);
  });

  it('happy: the report says per family what moved, and that a run found nothing left', () => {
    const counts = [
      { family: 'quota:<account>', moved: 3, gone: 1, left: 0 },
      { family: 'acct:<account>', moved: 0, gone: 0, left: 2 },
    ];
    expect(migrationReport(counts, false)).toEqual([
      'quota:<account>: moved 3, 1 gone before their turn',
      'acct:<account>: moved 0, 2 left (matching the old pattern, not of this family)',
      'moved 3 keys of 1 family',
    ]);
    expect(migrationReport(counts, true)[0]).toBe('quota:<account>: would move 3, 1 gone before their turn');
    expect(migrationReport([{ family: 'quota:<account>', moved: 0, gone: 0, left: 0 }], false).at(-1)).toBe(
      'nothing to move: no key of the previous release is left',
    );
    expect(migrationReport([], false)).toEqual([
      'no key family has names of the previous release: nothing to move',
    ]);
  });
});
