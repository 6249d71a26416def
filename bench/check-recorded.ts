// The figures bench:check compares a run with, from bench/recorded.json: each figure's range over at
// least three runs, by the name bench:check prints. The spread of a range (high − low) is the
// run-to-run variation a new figure is allowed beyond its worst end.
import { readFileSync } from 'node:fs';
import type { Figure } from './check-figures.ts';

export interface Recorded {
  low: number;
  high: number;
}

export const recordedPath = new URL('./recorded.json', import.meta.url);

/** The ranges of a recorded-figures file's text, by figure name; a malformed entry is refused. */
export function readRecorded(json: string): Map<string, Recorded> {
  const parsed = JSON.parse(json) as { figures?: unknown };
  if (!Array.isArray(parsed.figures)) throw new Error('bench/recorded.json has no "figures" list');
  const recorded = new Map<string, Recorded>();
  for (const entry of parsed.figures as Record<string, unknown>[]) {
    const { name, low, high } = entry;
    if (typeof name !== 'string' || typeof low !== 'number' || typeof high !== 'number' || low > high) {
      throw new Error(`bench/recorded.json: malformed figure ${JSON.stringify(entry)}`);
    }
    recorded.set(name, { low, high });
  }
  return recorded;
}

export function readRecordedFile(): Map<string, Recorded> {
  return readRecorded(readFileSync(recordedPath, 'utf8'));
}

export function verdict(figure: Figure, recorded: Recorded | undefined): { text: string; flagged: boolean } {
  if (!recorded) return { text: 'not recorded', flagged: false };
  const spread = recorded.high - recorded.low;
  const flagged =
    figure.better === 'lower' ? figure.value > recorded.high + spread : figure.value < recorded.low - spread;
  return { text: `${recorded.low}–${recorded.high} (spread ${spread.toFixed(1)})`, flagged };
}
