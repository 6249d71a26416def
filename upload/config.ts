// The uploader's command line and environment (CONTRACT.md "Uploader CLI", binding):
//   npm run --silent upload -- <FILE> [--format csv|ndjson|json] [--report <path.csv>] [--wait]
// with the key in RLS_API_KEY and the base URL in RLS_API_URL. Tuning knobs and the test hook are
// environment variables too, so the documented command line stays exactly the contract's.
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { FatalError } from './fatal.ts';
import { formats, type Format } from './source/open.ts';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080/api/v1';

export const usage = `usage: npm run --silent upload -- <FILE> [--format csv|ndjson|json] [--report <path.csv>] [--wait]
  FILE      CSV (header row of listing field names; amenities and images |-separated),
            NDJSON (one listing object per line) or a JSON array of listing objects
  --format  the file's format (default: from the extension, else from the first character)
  --report  where to write the failed rows (default: <FILE without extension>.report.csv)
  --wait    after sending, wait until every batch is stored (status completed)
environment: RLS_API_KEY (required), RLS_API_URL (default ${DEFAULT_API_URL})`;

const envSchema = z.object({
  RLS_API_KEY: z.string({ error: 'is required: the API key to upload with (svc_live_… or svc_test_…)' }),
  RLS_API_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as http://127.0.0.1:8080/api/v1' })
    .default(DEFAULT_API_URL)
    .transform((url) => url.replace(/\/+$/, '')),
  /** Where checkpoints live (default: $XDG_STATE_HOME/rls-upload or ~/.local/state/rls-upload). */
  RLS_UPLOAD_STATE_DIR: z.string().optional(),
  /** Batches in flight at once. */
  RLS_UPLOAD_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  /** --wait gives up (fatal, resumable) after this many seconds. */
  RLS_UPLOAD_WAIT_TIMEOUT: z.coerce.number().positive().default(900),
  /** Test hook: SIGKILL itself once N batches are recorded and the next one's answer arrived. */
  RLS_UPLOAD_KILL_AFTER_BATCHES: z.coerce.number().int().nonnegative().optional(),
  XDG_STATE_HOME: z.string().optional(),
  INIT_CWD: z.string().optional(),
});

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

/** The uploader's arguments and environment, parsed once at start (the environment: this process's). */
export function readConfig(argv: string[], environment: NodeJS.ProcessEnv): UploadConfig | 'help' {
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

  const env = envSchema.safeParse(
    Object.fromEntries(
      Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
    ),
  );
  if (!env.success) {
    const problems = env.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new FatalError(problems.join('\n'), 2);
  }
  // `npm run` starts scripts in the package directory; paths are meant relative to where the
  // user typed the command, which npm passes as INIT_CWD.
  const cwd = env.data.INIT_CWD ?? process.cwd();
  const file = resolve(cwd, positionals[0]!);
  const stateHome = env.data.XDG_STATE_HOME ?? join(homedir(), '.local', 'state');
  return {
    file,
    format: format as Format | undefined,
    reportPath: values.report ? resolve(cwd, values.report) : defaultReportPath(file),
    wait: values.wait ?? false,
    apiUrl: env.data.RLS_API_URL,
    apiKey: env.data.RLS_API_KEY,
    stateDir: resolve(cwd, env.data.RLS_UPLOAD_STATE_DIR ?? join(stateHome, 'rls-upload')),
    concurrency: env.data.RLS_UPLOAD_CONCURRENCY,
    waitTimeoutMs: env.data.RLS_UPLOAD_WAIT_TIMEOUT * 1000,
    killAfterBatches: env.data.RLS_UPLOAD_KILL_AFTER_BATCHES,
  };
}

/** listings.csv → listings.report.csv, beside the input. */
function defaultReportPath(file: string): string {
  return join(dirname(file), `${basename(file, extname(file))}.report.csv`);
}
