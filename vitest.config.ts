import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/conformance/ needs a real Kafka broker: `npm run test:conformance` (vitest.conformance.config.ts).
    exclude: ['**/node_modules/**', 'test/conformance/**'],
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
