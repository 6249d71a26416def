// npm run bench:check — a regression guard for CPU per listing, run by hand (nothing in `npm test`
// times anything). Runs the short ingest and stream benchmarks (and the analytics one with
// `-- --analytics`, which needs its seeded bench set), reads from their printouts the figures that
// depend least on the machine's load — ratios to a reference measured in the same run and CPU µs per
// listing from /proc — and prints each next to the range recorded in bench/recorded.json
// (docs/performance.md, "Recorded figures"), flagging any that is worse than the worst recorded value by more than the
// recorded run-to-run spread. Exits 1 when one is flagged, so it can gate a merge.
//
// Runs against the environment's stack like the benchmarks it runs (their knobs pass through);
// BENCH_CHECK_SECONDS (5) shortens each measured phase.
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseFigures, type Figure } from './check-figures.ts';
import { readRecordedFile, verdict } from './check-recorded.ts';

const seconds = process.env.BENCH_CHECK_SECONDS ?? '5';
const withAnalytics = process.argv.includes('--analytics');

function runBench(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['run', '--silent', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      process.stdout.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`npm run ${script} exited with code ${code}`)),
    );
  });
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
const measured: Figure[] = [];
const loads: string[] = [`start ${load()}`];
measured.push(...parseFigures('ingest', await runBench('bench:ingest', { BENCH_SECONDS: seconds })));
loads.push(`after ingest ${load()}`);
// Ours only: the recorded figures are our pipeline's, and the peer would double the run.
measured.push(
  ...parseFigures(
    'stream',
    await runBench('bench:stream', { BENCH_SECONDS: seconds, BENCH_PIPELINES: 'ours' }),
  ),
);
loads.push(`after stream ${load()}`);
if (withAnalytics) {
  // The answers it records, one round: the service code without HTTP, summaries prepared.
  const analytics = { BENCH_ROUNDS: '1', BENCH_ONLY: 'pricing,heatmap (city box),velocity,estimate' };
  measured.push(...parseFigures('analytics', await runBench('bench:analytics', analytics)));
  loads.push(`after analytics ${load()}`);
}

const recorded = readRecordedFile();
const rows = measured.map((figure) => ({ figure, ...verdict(figure, recorded.get(figure.name)) }));
const width = Math.max(...rows.map((r) => r.figure.name.length));
process.stdout.write(`\nbench:check — load average (1, 5, 15 min): ${loads.join('; ')}\n`);
process.stdout.write(`${'figure'.padEnd(width)}  ${'now'.padStart(9)}  recorded (bench/recorded.json)\n`);
for (const { figure, text, flagged } of rows) {
  process.stdout.write(
    `${figure.name.padEnd(width)}  ${figure.value.toFixed(1).padStart(9)}  ${text}${flagged ? '  ← WORSE' : ''}\n`,
  );
}
const worse = rows.filter((r) => r.flagged);
process.stdout.write(
  worse.length
    ? `\n${worse.length} figure(s) worse than recorded by more than the run-to-run spread\n`
    : '\nno figure worse than recorded by more than the run-to-run spread\n',
);
process.exitCode = worse.length ? 1 : 0;
