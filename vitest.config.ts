import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/conformance/ and test/kafka-tools/ need a real Kafka broker: `npm run test:conformance`,
    // `npm run test:kafka-tools` (vitest.conformance.config.ts, vitest.kafka-tools.config.ts).
    exclude: ['**/node_modules/**', 'test/conformance/**', 'test/kafka-tools/**'],
    // Backstops for a hang, not speed limits: every wait in a test is for an event, so a loaded
    // machine makes a test slower, never wrong.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Most end-to-end files spend their time waiting on sockets and child processes (real clients,
    // server processes), not on a core: four files at a time on two cores halves the run. Every
    // server a test starts takes a free port (port 0) and its own temporary data directory.
    maxWorkers: 4,
    // Provisions the real clients in other languages (Python, Java, Go, Kafka's jars) once, cached.
    globalSetup: ['test/support/provision.ts'],
  },
});
