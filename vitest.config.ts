import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration files share one running service; they isolate themselves by random accounts.
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
