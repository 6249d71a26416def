// A benchmark build: guarantees a service process can be told to skip, only to measure what each
// costs (npm run bench:guarantees; docs/performance.md, "What each guarantee costs"). Two variables,
// both set by the bench's launcher only: RLS_BENCH_WITHOUT names the guarantees to skip, and the
// process schemas accept it only next to RLS_BENCH_BUILD=1 and never with NODE_ENV=production, so
// a stray RLS_BENCH_WITHOUT in a deployment stops the process at boot instead of weakening it. A
// process that runs with guarantees off says so at boot (announceBenchBuild).
// The other guarantees the bench measures need no switch in a service: it leaves the image process
// out, detaches the warehouse's views from `listings` and sends requests without Idempotency-Key.
import { z } from 'zod';
import { commaList } from './env.ts';
import type { Logger } from './logger.ts';

/** What a service process can skip: the API's duplicate detection and covered Kafka sends, the stream's owners. */
export const SERVICE_GUARANTEES = ['dedupe', 'owners', 'covered-sends'] as const;
export type ServiceGuarantee = (typeof SERVICE_GUARANTEES)[number];

export const benchBuildEnvSchema = z.object({
  /** Set by the benchmark launcher only: this process is a benchmark build. */
  RLS_BENCH_BUILD: z.enum(['0', '1']).default('0'),
  /** Comma-separated guarantees this benchmark build skips (SERVICE_GUARANTEES); unset: none. */
  RLS_BENCH_WITHOUT: commaList.pipe(z.array(z.enum(SERVICE_GUARANTEES))),
});
export type BenchBuildEnv = z.infer<typeof benchBuildEnvSchema>;

/** The schema check (a process schema's superRefine): a benchmark build only outside production, and only declared. */
export function checkBenchBuildEnv(env: BenchBuildEnv & { NODE_ENV: string }, ctx: z.RefinementCtx): void {
  if (env.NODE_ENV === 'production' && (env.RLS_BENCH_BUILD === '1' || env.RLS_BENCH_WITHOUT.length))
    ctx.addIssue({
      code: 'custom',
      path: [env.RLS_BENCH_WITHOUT.length ? 'RLS_BENCH_WITHOUT' : 'RLS_BENCH_BUILD'],
      message: 'a benchmark build turns guarantees off: refused with NODE_ENV=production',
    });
  else if (env.RLS_BENCH_WITHOUT.length && env.RLS_BENCH_BUILD !== '1')
    ctx.addIssue({
      code: 'custom',
      path: ['RLS_BENCH_WITHOUT'],
      message:
        'turns guarantees off: only in a benchmark build (RLS_BENCH_BUILD=1, set by npm run bench:guarantees)',
    });
}

/** Whether this process keeps `guarantee` (always, but in a benchmark build that skips it). */
export function keeps(env: BenchBuildEnv, guarantee: ServiceGuarantee): boolean {
  return !env.RLS_BENCH_WITHOUT.includes(guarantee);
}

/** At boot: a process with guarantees off says so, at a level every LOG_LEVEL shows. */
export function announceBenchBuild(env: BenchBuildEnv, logger: Logger): void {
  if (!env.RLS_BENCH_WITHOUT.length) return;
  logger.error('BENCHMARK BUILD: guarantees turned off, never serve real traffic with it', {
    without: env.RLS_BENCH_WITHOUT,
  });
}
