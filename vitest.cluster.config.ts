import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// The cluster phase of `npm test` (infra/local/test.mjs): fault tests against a cluster-topology
// stack of its own (Kafka ×3, Redis Cluster ×6), one file at a time, since they kill its nodes.
// The API and a stream worker run against it (global setup); tests that talk to Kafka or Redis
// directly simply do not use them.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/cluster/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
