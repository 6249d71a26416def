// Helpers of the auth-*/usage-* integration tests: extra gateway processes (for cross-process and
// fault tests), free ports, and the contract CLI as integrators run it.
import { execFile, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { spawnService, stopChildren } from '../../infra/local/services.mjs';
import { setTimeout as sleep } from 'node:timers/promises';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ExtraGateway {
  port: number;
  baseUrl: string;
  child: ChildProcess;
  /** Its stdout and stderr so far, when started with `captureOutput` (else empty). */
  output(): string;
  stop(): Promise<void>;
}

/** Spawns one more gateway process (same stack, same namespace) and waits until it answers. */
export async function startGateway(
  env: NodeJS.ProcessEnv = {},
  port?: number,
  options: { captureOutput?: boolean } = {},
): Promise<ExtraGateway> {
  const at = port ?? (await freePort());
  const child = spawnService(
    'gateway',
    { LOG_LEVEL: 'warn', ...env, PORT: String(at) },
    options.captureOutput ? { stdio: 'pipe' } : undefined,
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const baseUrl = `http://127.0.0.1:${at}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with code ${child.exitCode}`);
    try {
      // Any HTTP answer means the server listens (its routes need no stream worker).
      await fetch(`${baseUrl}/api/v1/listings/bulk`);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(200);
    }
  }
  return { port: at, baseUrl, child, output: () => output, stop: () => stopChildren([child]) };
}

/** One more gateway process for a whole test file: started before its tests, stopped after them. */
export function gatewayForFile(...options: Parameters<typeof startGateway>): () => ExtraGateway {
  let gateway: ExtraGateway | undefined;
  beforeAll(async () => {
    gateway = await startGateway(...options);
  });
  afterAll(async () => {
    await gateway?.stop();
  });
  return () => gateway!;
}

/** `npm run --silent keys -- <args>` with the test environment; stdout lines parsed as JSON. */
export async function keysCli(...args: string[]): Promise<{ lines: unknown[]; stdout: string }> {
  const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'keys', '--', ...args], {
    env: process.env,
    timeout: 30_000,
  });
  const lines = stdout
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as unknown);
  return { lines, stdout };
}
