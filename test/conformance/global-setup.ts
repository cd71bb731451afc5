/**
 * vitest globalSetup of the conformance suite: one Kafka 4.3.1 broker for every scenario file
 * of the run, stopped at the end. `KMC_CONFORMANCE_KAFKA_PORT=<port>` uses a broker that is
 * already running on 127.0.0.1 instead (started with the configs of oracle.ts).
 */
import type { TestProject } from 'vitest/node';
import { startKafka, waitForApiVersions, waitForCoordinator } from './oracle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaPort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.KMC_CONFORMANCE_KAFKA_PORT;
  if (existing) {
    const port = Number(existing);
    await waitForApiVersions(port, 30_000);
    await waitForCoordinator(port, 30_000);
    project.provide('kafkaPort', port);
    return async () => {};
  }
  const started = Date.now();
  const kafka = await startKafka();
  console.log(`conformance: Kafka 4.3.1 ready on 127.0.0.1:${kafka.port} in ${Date.now() - started} ms`);
  project.provide('kafkaPort', kafka.port);
  return () => kafka.stop();
}
