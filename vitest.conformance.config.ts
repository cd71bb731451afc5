import { defineConfig } from 'vitest/config';

// The conformance suite (`npm run test:conformance`): every scenario in test/conformance/ runs
// against a real Kafka 4.3.1 broker (started once by global-setup.ts) and against our server,
// and the answers must match. Needs the jars of scripts/fetch-kafka.sh and Java 17+.
export default defineConfig({
  test: {
    include: ['test/conformance/**/*.conformance.test.ts'],
    globalSetup: ['test/conformance/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    pool: 'forks',
  },
});
