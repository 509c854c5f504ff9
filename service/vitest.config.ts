import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser runs are heavy on a 2-core machine; files run two at a time.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
