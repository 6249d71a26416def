// `npm run --silent <script>` in the repository as an operator runs it, for the tests of the
// operations commands: the exit code and both outputs, whether it succeeded or not.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repoRoot } from '../../infra/local/settings.mjs';

const run = promisify(execFile);

/** Runs `script` with `env` added to this process's environment (at most 90 s). */
export async function npmRun(script: string, env: Record<string, string>) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', script], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      timeout: 90_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
