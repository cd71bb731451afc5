import { defineConfig } from 'vitest/config';

// The Kafka-tools suite (`npm run test:kafka-tools`): Kafka 4.3.1's command-line tools run against
// our server and against the real Kafka 4.3.1 broker the conformance suite starts (its global setup),
// and their outputs are compared (test/kafka-tools/harness.ts). Needs the jars of
// scripts/fetch-kafka.sh and Java 17+.
export default defineConfig({
  test: {
    include: ['test/kafka-tools/**/*.tools.test.ts'],
    globalSetup: ['test/conformance/global-setup.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    pool: 'forks',
    // Every case starts a JVM per tool run on each target: two files at a time on two cores.
    maxWorkers: 2,
  },
});
