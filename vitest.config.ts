import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // test/faults/ stops and kills components: it runs after this suite, serially (vitest.faults.config.ts).
    include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/kafkajs-patches.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files share one running service; they isolate themselves by random accounts.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
