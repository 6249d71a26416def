// The stream worker's scheduled jobs (usage roll-up, key audit flush, estimate backtest, listing
// expiry) all run through scheduleJob, so each gets the same guarantees:
// - the cron expression is validated at boot (the env schema uses cronExpression) and read in UTC,
//   whatever the host's time zone: a job documented for 02:30 UTC runs at 02:30 UTC;
// - one run per scheduled time across the cluster: every worker's cron fires, the first to take the
//   Redis lock of that time runs, the others count a skip; the lock expires after `lockTtlMs`, so a
//   worker that dies mid-run blocks nothing but that one time;
// - scheduled_job_runs_total and scheduled_job_duration_seconds per run, by job and outcome;
// - stop() ends the schedule, aborts the run in flight (its signal) and waits for it.
import type { Redis } from 'ioredis';
import cron from 'node-cron';
import { z } from 'zod';
import { errorFields, type Logger } from '../../common/logger.ts';
import {
  scheduledJobDuration,
  scheduledJobLastSuccess,
  scheduledJobRuns,
} from '../../common/metrics/registry.ts';

/**
 * An env field holding a cron expression (5 fields, or 6 with seconds), refused at boot otherwise;
 * with `orOff`, `off` too (the job does not run).
 */
export const cronExpression = (defaultValue: string, { orOff = false } = {}) =>
  z
    .string()
    .default(defaultValue)
    .refine(
      (expression) => (orOff && expression === 'off') || cron.validate(expression),
      orOff ? 'must be a cron expression or off' : 'must be a cron expression',
    );

export interface Job {
  /** Metric label, lock name and log field. */
  name: string;
  cron: string;
  /** How long one scheduled time's lock lives: longer than a run and than the workers' clock skew. */
  lockTtlMs: number;
  /** One run (it logs what it did); stops at `signal` when it can take long. */
  run(context: JobRun): Promise<void>;
  /** Releases what the job holds (its own clients) once the schedule stopped. */
  close?(): Promise<void>;
}

export interface JobRun {
  /** Aborted by stop(). */
  signal: AbortSignal;
  /** The scheduled time this run is for (whole seconds, UTC). */
  at: Date;
}

export interface JobDeps {
  redis: Redis;
  /** REDIS_KEY_PREFIX. */
  prefix: string;
  logger: Logger;
}

export interface ScheduledJob {
  stop(): Promise<void>;
}

export type JobOutcome = 'succeeded' | 'failed' | 'skipped';

/**
 * The lock of one scheduled time of a job (`at`: a whole second, as node-cron schedules): a single
 * key, its own tag on a cluster.
 */
export function jobLockKey(prefix: string, name: string, at: Date): string {
  return `${prefix}{job:${name}:${at.toISOString()}}`;
}

export function scheduleJob(job: Job, deps: JobDeps): ScheduledJob {
  if (!cron.validate(job.cron)) throw new Error(`${job.name}: "${job.cron}" is not a cron expression`);
  const logger = deps.logger.child({ task: job.name });
  const abort = new AbortController();
  let running: Promise<JobOutcome> = Promise.resolve('skipped');

  async function runAt(at: Date): Promise<JobOutcome> {
    const started = performance.now();
    let outcome: JobOutcome = 'failed';
    try {
      const lock = jobLockKey(deps.prefix, job.name, at);
      const taken = await deps.redis.set(lock, String(process.pid), 'PX', job.lockTtlMs, 'NX');
      if (taken !== 'OK') {
        outcome = 'skipped';
      } else {
        await job.run({ signal: abort.signal, at });
        outcome = 'succeeded';
      }
    } catch (error) {
      // The next scheduled time runs again; a run stopped by stop() is not a failure worth a warning.
      if (!abort.signal.aborted)
        logger.warn('scheduled run failed; the next one retries', errorFields(error));
    }
    scheduledJobRuns.inc({ job: job.name, outcome });
    if (outcome === 'succeeded') scheduledJobLastSuccess.set({ job: job.name }, Date.now() / 1000);
    scheduledJobDuration.observe({ job: job.name, outcome }, (performance.now() - started) / 1000);
    return outcome;
  }

  const task = cron.schedule(
    job.cron,
    (context) => {
      running = runAt(context.date);
      return running;
    },
    { name: job.name, noOverlap: true, timezone: 'Etc/UTC' },
  );
  return {
    async stop() {
      await task.stop();
      abort.abort();
      await running;
      await job.close?.();
    },
  };
}

/** Schedules every job; stop() stops them all. */
export function scheduleJobs(jobs: Job[], deps: JobDeps): ScheduledJob {
  const scheduled = jobs.map((job) => scheduleJob(job, deps));
  return {
    async stop() {
      await Promise.all(scheduled.map((job) => job.stop()));
    },
  };
}
