// What `npm run redis:migrate` prints: a line per family with previous names, then the total.
import type { FamilyCount } from './migrate.ts';

export function migrationReport(counts: readonly FamilyCount[], dryRun: boolean): string[] {
  if (!counts.length) return ['no key family has names of the previous release: nothing to move'];
  const verb = dryRun ? 'would move' : 'moved';
  const lines = counts.map(
    (c) =>
      `${c.family}: ${verb} ${c.moved}` +
      (c.gone ? `, ${c.gone} gone before their turn` : '') +
      (c.left ? `, ${c.left} left (matching the old pattern, not of this family)` : ''),
  );
  const total = counts.reduce((sum, c) => sum + c.moved, 0);
  const families = counts.filter((c) => c.moved).length;
  lines.push(
    total === 0
      ? 'nothing to move: no key of the previous release is left'
      : `${verb} ${total} keys of ${families} ${families === 1 ? 'family' : 'families'}`,
  );
  return lines;
}
