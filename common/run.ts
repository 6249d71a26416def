// Process lifecycle shared by every entry point: parse env, start, stop cleanly on SIGINT/SIGTERM,
// exit non-zero with a clear message when start-up fails.
import type { z } from 'zod';
import { EnvError, parseEnv } from './env.ts';
import { onFatal } from './fatal.ts';
import { createLogger, type Logger, type LogLevel } from './logger.ts';

export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * Runs a service process: parses its environment with `schema` once (a bad variable stops it with
 * the variable named), logs at its LOG_LEVEL, and hands both to `start`; nothing reads the
 * environment after this.
 */
export async function runProcess<S extends z.ZodType<{ LOG_LEVEL: LogLevel }>>(
  name: string,
  schema: S,
  start: (env: z.infer<S>, logger: Logger) => Promise<Stoppable>,
): Promise<void> {
  let env: z.infer<S>;
  try {
    env = parseEnv(schema);
  } catch (error) {
    process.stderr.write(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const logger = createLogger(env.LOG_LEVEL, { service: name });
  let running: Stoppable;
  try {
    running = await start(env, logger);
  } catch (error) {
    if (error instanceof EnvError) {
      process.stderr.write(`${name}: ${error.message}\n`);
    } else {
      logger.error('start-up failed', { error: error instanceof Error ? error.stack : String(error) });
    }
    process.exit(1);
  }
  let stopping = false;
  const stop = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info('stopping', { signal });
    const force = setTimeout(() => {
      logger.error('did not stop within 30 s; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    try {
      await running.stop();
      logger.info('stopped');
      process.exit(exitCode);
    } catch (error) {
      logger.error('stop failed', { error: String(error) });
      process.exit(1);
    }
  };
  // Exit code 1: the supervisor restarts a process that stopped for a fault, not for a signal.
  onFatal((reason) => {
    logger.error('stopping for a fault nothing in this process recovers from', { reason });
    void stop('fatal', 1);
  });
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('unhandledRejection', (error) => logger.error('unhandled rejection', { error: String(error) }));
}

/** One-shot commands (`npm run migrate`, `npm run topics`): a failure is one line on stderr and exit code 1. */
export async function runCommand(name: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`${name}: ${error instanceof EnvError ? '' : 'failed: '}${message}\n`);
    process.exitCode = 1;
  }
}
