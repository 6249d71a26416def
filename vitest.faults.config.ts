import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Fault tests stop and restart stack components and kill workers: one file at a time, after the
// main suite, against the same stack.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: ['test/faults/**/*.test.ts'],
      fileParallelism: false,
      testTimeout: 300_000,
    },
  }),
);
