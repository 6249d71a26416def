import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// Cluster tests kill nodes of the cluster topology (RLS_TOPOLOGY=cluster): one file at a time, against
// the clusters the stack started. They talk to Kafka and Redis directly, without the services.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/cluster/**/*.test.ts'],
    globalSetup: [],
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
