import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// The cluster phase of `npm test` (infra/local/test.mjs): fault tests against a cluster-topology
// stack of their own (Kafka ×3, Redis Cluster ×6), one file at a time, since they kill its nodes.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/cluster/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
