import { defineConfig } from 'vitest/config';

// One configuration, four projects; infra/local/test.mjs picks them (`--project <name>`), and so
// can anyone running vitest directly (docs/testing.md). Each project states what it needs:
// - unit: no service, no global setup;
// - integration: the running stack (global setup starts the suite's own stream worker) shared by
//   all files, which isolate themselves by random accounts;
// - faults: stops and restarts stack components and kills workers, one file at a time, after the
//   main suite, against the same stack;
// - cluster: fault tests against a cluster-topology stack of its own (Kafka ×3, Redis Cluster ×6),
//   one file at a time, since they kill its nodes.
const withStack = {
  globalSetup: ['test/support/global-setup.ts'],
  // Test files that build their own kafkajs clients get the services' request-queue fix.
  setupFiles: ['test/support/kafkajs-patches.ts'],
};

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    // Two workers for the unit and integration projects alike (this 2-core machine's count; vitest
    // would take one less). Projects run together in one group only with the same maxWorkers.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Files share a worker's module cache: each module graph (zod schemas, sharp, h3-js...)
          // is loaded once per worker rather than once per file, which halves the loop's CPU
          // (docs/decisions/0026-unit-tests-without-isolation.md). Unit tests keep no global
          // state between files: fake timers are restored, nothing is mocked by module.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          ...withStack,
          fileParallelism: true,
        },
      },
      {
        extends: true,
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          ...withStack,
          fileParallelism: false,
          sequence: { groupOrder: 1 }, // after the others, when chosen with them
          testTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          ...withStack,
          fileParallelism: false,
          sequence: { groupOrder: 2 },
          testTimeout: 300_000,
        },
      },
    ],
  },
});
