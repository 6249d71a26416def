import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Fault tests stop and restart stack components and kill workers: one file at a time, after the
// main suite, against the same stack. (Not mergeConfig: it would append to the base `include`
// and run the main suite a second time.)
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/faults/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
