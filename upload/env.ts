// The uploader's environment (docs/configuration.md, "Variables"): the key, the API's base URL, the tuning
// knobs and the test hook. Read once at start, after the command line (upload/config.ts); a wrong
// value stops the uploader with exit code 2 and the variable named.
import { z } from 'zod';
import { FatalError } from './fatal.ts';

export const DEFAULT_API_URL = 'http://127.0.0.1:8080/api/v1';

export const uploadEnvSchema = z.object({
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
export type UploadEnv = z.infer<typeof uploadEnvSchema>;

/** This process's environment unless another is given; unset and empty variables are alike. */
export function readUploadEnv(environment: NodeJS.ProcessEnv = process.env): UploadEnv {
  const env = uploadEnvSchema.safeParse(
    Object.fromEntries(
      Object.entries(environment).filter(([, value]) => value !== undefined && value !== ''),
    ),
  );
  if (!env.success) {
    const problems = env.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new FatalError(problems.join('\n'), 2);
  }
  return env.data;
}
