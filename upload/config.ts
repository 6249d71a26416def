// The uploader's command line and environment (CONTRACT.md "Uploader CLI", binding):
//   npm run --silent upload -- <FILE> [--format csv|ndjson|json] [--report <path.csv>] [--wait]
// with the key in RLS_API_KEY and the base URL in RLS_API_URL. Tuning knobs and the test hook are
// environment variables too, so the documented command line stays exactly the contract's.
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_API_URL, readUploadEnv } from './env.ts';
import { FatalError } from './fatal.ts';
import { formats, type Format } from './source/open.ts';

export const usage = `usage: npm run --silent upload -- <FILE> [--format csv|ndjson|json] [--report <path.csv>] [--wait]
  FILE      CSV (header row of listing field names; amenities and images |-separated),
            NDJSON (one listing object per line) or a JSON array of listing objects
  --format  the file's format (default: from the extension, else from the first character)
  --report  where to write the failed rows (default: <FILE without extension>.report.csv)
  --wait    after sending, wait until every batch is stored (status completed)
environment: RLS_API_KEY (required), RLS_API_URL (default ${DEFAULT_API_URL})`;

export interface UploadConfig {
  file: string;
  format: Format | undefined;
  reportPath: string;
  wait: boolean;
  apiUrl: string;
  apiKey: string;
  stateDir: string;
  concurrency: number;
  waitTimeoutMs: number;
  killAfterBatches: number | undefined;
}

/** The uploader's arguments and environment (upload/env.ts), parsed once at start. */
export function readConfig(argv: string[], environment?: NodeJS.ProcessEnv): UploadConfig | 'help' {
  let parsed: ReturnType<typeof parseArgs<{ allowPositionals: true; options: typeof options }>>;
  const options = {
    format: { type: 'string' },
    report: { type: 'string' },
    wait: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options });
  } catch (error) {
    throw new FatalError(`${(error as Error).message}\n${usage}`, 2);
  }
  const { positionals, values } = parsed;
  if (values.help) return 'help';
  if (positionals.length !== 1) {
    throw new FatalError(`${positionals.length ? 'one FILE only' : 'FILE is required'}\n${usage}`, 2);
  }
  const format = values.format;
  if (format !== undefined && !(formats as readonly string[]).includes(format)) {
    throw new FatalError(
      `--format must be one of ${formats.join(', ')}; got ${JSON.stringify(format)}\n${usage}`,
      2,
    );
  }
  if (values.report !== undefined && values.report.trim() === '')
    throw new FatalError(`--report needs a path\n${usage}`, 2);

  const env = readUploadEnv(environment);
  // `npm run` starts scripts in the package directory; paths are meant relative to where the
  // user typed the command, which npm passes as INIT_CWD.
  const cwd = env.INIT_CWD ?? process.cwd();
  const file = resolve(cwd, positionals[0]!);
  const stateHome = env.XDG_STATE_HOME ?? join(homedir(), '.local', 'state');
  return {
    file,
    format: format as Format | undefined,
    reportPath: values.report ? resolve(cwd, values.report) : defaultReportPath(file),
    wait: values.wait ?? false,
    apiUrl: env.RLS_API_URL,
    apiKey: env.RLS_API_KEY,
    stateDir: resolve(cwd, env.RLS_UPLOAD_STATE_DIR ?? join(stateHome, 'rls-upload')),
    concurrency: env.RLS_UPLOAD_CONCURRENCY,
    waitTimeoutMs: env.RLS_UPLOAD_WAIT_TIMEOUT * 1000,
    killAfterBatches: env.RLS_UPLOAD_KILL_AFTER_BATCHES,
  };
}

/** listings.csv → listings.report.csv, beside the input. */
function defaultReportPath(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.report.csv`);
}
