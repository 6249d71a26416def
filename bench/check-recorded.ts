// The figures docs/performance.md records for bench:check: the rows of its "Recorded figures"
// table, `| name | low–high | … |`, each the range of at least three runs. The spread of a range
// (high − low) is the run-to-run variation a new figure is allowed beyond its worst end.
import type { Figure } from './check-figures.ts';

export interface Recorded {
  low: number;
  high: number;
}

export function readRecorded(markdown: string): Map<string, Recorded> {
  const start = markdown.indexOf('## Recorded figures');
  if (start < 0) throw new Error('docs/performance.md has no "## Recorded figures" section');
  const section = markdown.slice(start).split('\n## ')[0]!;
  const recorded = new Map<string, Recorded>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const range = /^([\d.]+)\s*[–-]\s*([\d.]+)$/.exec(cells[2] ?? '');
    if (cells[1] && range) recorded.set(cells[1], { low: Number(range[1]), high: Number(range[2]) });
  }
  return recorded;
}

export function verdict(figure: Figure, recorded: Recorded | undefined): { text: string; flagged: boolean } {
  if (!recorded) return { text: 'not recorded', flagged: false };
  const spread = recorded.high - recorded.low;
  const flagged =
    figure.better === 'lower' ? figure.value > recorded.high + spread : figure.value < recorded.low - spread;
  return { text: `${recorded.low}–${recorded.high} (spread ${spread.toFixed(1)})`, flagged };
}
