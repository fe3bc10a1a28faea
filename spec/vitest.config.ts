import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['spec/**/*.test.ts'],
    testTimeout: 30_000,
    pool: 'forks',
  },
});
