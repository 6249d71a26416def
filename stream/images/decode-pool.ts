// Photos decoded in child processes, each killed when one decode outlives its deadline, and a
// queue shared fairly by accounts in front of them. libvips cannot be interrupted (sharp's
// timeout() did not stop a 157 s SVG nor a 35 s progressive JPEG) and runs on the process's own
// thread pool, so only a process of its own can be stopped; the queue keeps one account's slow
// photos from holding another account's behind them.
// - The cheap refusals (format by magic bytes, JPEG scan count) run here, before any child.
// - `size` children, one photo each at a time; a killed child is replaced on the next photo.
// - Accounts take turns for the children (fair-pool.ts with a share of one): another account's
//   photo waits at most for the photos already running, each at most `timeoutMs`.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { refuseBeforeDecoding, type DecodeLimits, type DecodeResult } from './decode.ts';
import { createFairPool } from './fair-pool.ts';

export interface DecodePoolOptions {
  /** Photos decoded at once (children). */
  size: number;
  timeoutMs: number;
  limits: DecodeLimits;
}

export interface DecodePool {
  /**
   * Decodes in the account's turn; `then` runs in the same turn once the photo is decoded (the
   * model's part of the CPU work), so the queue bounds all of it. `started` is when the turn came
   * (performance.now()).
   */
  decode<T>(
    account: string,
    body: Buffer,
    then: (result: DecodeResult, started: number) => Promise<T> | T,
  ): Promise<T>;
  /** Photos not started yet reject at once (shutdown). */
  abort(error: Error): void;
  close(): Promise<void>;
}

// Under tsx (tests, benchmarks) this module is TypeScript and so is the child; dist/ has both as .js.
const childEntry = fileURLToPath(new URL(`./decode-child${extensionOf(import.meta.url)}`, import.meta.url));
const childExecArgv = childEntry.endsWith('.ts') ? ['--import', 'tsx'] : [];

export function createDecodePool({ size, timeoutMs, limits }: DecodePoolOptions): DecodePool {
  const queue = createFairPool(size, 1);
  const idle: Child[] = [];
  const all = new Set<Child>();
  let nextId = 1;

  function takeChild(): Child {
    const child = idle.pop() ?? spawnChild();
    all.add(child);
    return child;
  }

  async function decodeInChild(body: Buffer): Promise<DecodeResult> {
    const child = takeChild();
    const id = nextId++;
    await child.ready;
    if (!child.alive) {
      all.delete(child);
      return { ok: false, outcome: 'not_an_image', error: 'the decoder process did not start' };
    }
    const result = await new Promise<DecodeResult>((resolve) => {
      const timer = setTimeout(() => {
        child.onAnswer = child.onExit = undefined;
        child.kill();
        resolve({ ok: false, outcome: 'decode_timeout', error: `decoding took longer than ${timeoutMs} ms` });
      }, timeoutMs);
      child.onAnswer = (answer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      child.onExit = () => {
        clearTimeout(timer);
        resolve({ ok: false, outcome: 'not_an_image', error: 'the decoder exited while decoding' });
      };
      child.send({ id, body, limits });
    });
    if (child.alive) idle.push(child);
    else all.delete(child);
    return result;
  }

  return {
    decode(account, body, then) {
      return queue.run(account, async () => {
        const started = performance.now();
        const result = refuseBeforeDecoding(body) ?? (await decodeInChild(body));
        return then(result, started);
      });
    },
    abort: (error) => queue.abort(error),
    async close() {
      await Promise.all([...all].map((child) => child.stop()));
      all.clear();
      idle.length = 0;
    },
  };
}

interface Child {
  readonly alive: boolean;
  /** Settles once the child has loaded (or exited). */
  readonly ready: Promise<void>;
  onAnswer?: (result: DecodeResult) => void;
  onExit?: () => void;
  send(job: { id: number; body: Buffer; limits: DecodeLimits }): void;
  kill(): void;
  stop(): Promise<void>;
}

function spawnChild(): Child {
  const proc: ChildProcess = fork(childEntry, [], {
    execArgv: childExecArgv,
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let alive = true;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let loaded: () => void = () => {};
  const ready = Promise.race([new Promise<void>((resolve) => (loaded = resolve)), exited]);
  const child: Child = {
    ready,
    get alive() {
      return alive;
    },
    send(job) {
      proc.send(job);
    },
    kill() {
      alive = false;
      proc.kill('SIGKILL');
    },
    async stop() {
      if (!alive) return exited;
      alive = false;
      proc.disconnect();
      const killer = setTimeout(() => proc.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(killer);
    },
  };
  proc.on('message', (message: { ready?: true; result: DecodeResult }) => {
    if (message.ready) return loaded();
    const answer = child.onAnswer;
    child.onAnswer = child.onExit = undefined;
    answer?.(revive(message.result));
  });
  proc.once('exit', () => {
    alive = false;
    const exit = child.onExit;
    child.onAnswer = child.onExit = undefined;
    exit?.();
  });
  proc.on('error', () => {}); // a failed send shows as the exit above
  return child;
}

/** Structured clone turns Buffers into plain Uint8Arrays. */
function revive(result: DecodeResult): DecodeResult {
  if (!result.ok) return result;
  const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    ok: true,
    photo: { ...result.photo, modelRgb: view(result.photo.modelRgb), hashGrey: view(result.photo.hashGrey) },
  };
}

function extensionOf(url: string): string {
  return url.endsWith('.ts') ? '.ts' : '.js';
}
