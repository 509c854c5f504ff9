import { defineConfig } from 'vitest/config';

// Unit tests of the console's logic (formatting, state derivation); e2e/ runs under Playwright Test.
export default defineConfig({
  test: { include: ['src/**/*.test.ts'] },
});
