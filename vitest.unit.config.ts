import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:unit`: the unit tests alone, which need no service, so no stack and no global setup.
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: ['test/unit/**/*.test.ts'],
    globalSetup: [],
  },
});
