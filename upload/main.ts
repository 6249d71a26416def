// `npm run --silent upload -- <FILE> [--format csv|ndjson|json] [--report <path.csv>] [--wait]`:
// the contract's uploader (CONTRACT.md "Uploader CLI"; docs/ingest.md, "Uploading a file"). stdout carries
// exactly one line, the JSON summary, last; progress and every message go to stderr.
// Exit codes: 0 finished (even with failed rows), 1 fatal (unreadable file, refused key, API
// unreachable — the reason on stderr; the checkpoint is kept, so the same command resumes),
// 2 bad command line or environment, 130 interrupted (SIGINT/SIGTERM; resumable as well).
import { readConfig, usage } from './config.ts';
import { FatalError } from './fatal.ts';
import { createProgress } from './progress.ts';
import { upload } from './run.ts';

class Interrupted extends Error {}

async function main(): Promise<number> {
  const progress = createProgress(process.stderr);
  const interrupt = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupt.signal.aborted) process.exit(130); // a second Ctrl-C does not wait
    interrupt.abort(new Interrupted(signal));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const config = readConfig(process.argv.slice(2));
    if (config === 'help') {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    const summary = await upload(config, { progress, signal: interrupt.signal });
    process.stdout.write(JSON.stringify(summary) + '\n');
    return 0;
  } catch (error) {
    progress.end();
    if (interrupt.signal.aborted) {
      process.stderr.write('upload: interrupted; run the same command again to resume\n');
      return 130;
    }
    if (error instanceof FatalError) {
      process.stderr.write(`upload: ${error.message}\n`);
      return error.exitCode;
    }
    process.stderr.write(`upload: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main();
