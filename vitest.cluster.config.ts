import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// The cluster phase's ClickHouse tests (RLS_TOPOLOGY=cluster): two shards against one server,
// the stack's services as in the main suite; one file at a time (they load data and kill shards).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/cluster/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
  },
});
