import { defineConfig } from 'vitest/config';

// Root package: the action and CLI. The service has its own config in service/.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
