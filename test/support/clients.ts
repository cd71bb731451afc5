/**
 * What test/support/provision.ts (the globalSetup of `npm test`) provisioned, for the test files:
 * each real client in another language, or null when its toolchain is missing on this machine
 * (the provisioner printed which tool and how to install it). A suite that needs one declares it:
 *
 *   const py = clients().python;
 *   describe.skipIf(py === null)('librdkafka ...', () => { ... py!.bin ... });
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The versions the provisioner installs; one place to change a pin. */
export const PINS = {
  confluentKafka: '2.16.1',
  kafkaPython: '3.0.12',
  /** Kafka's jars (DumpLogSegments; the conformance broker). */
  kafka: '4.3.1',
  /** org.apache.kafka:kafka-clients in test/clients/java/pom.xml. */
  kafkaClients: '4.3.1',
} as const;

export interface ProvisionedClients {
  /** A Python with confluent-kafka (librdkafka) and kafka-python, and the versions it imports. */
  python: { bin: string; confluentKafka: string; librdkafka: string; kafkaPython: string } | null;
  /** The folder of Kafka's jars (`java -cp '<libs>/*'`). */
  kafkaLibs: string | null;
  /** The `java -cp` class path of test/clients/java. */
  javaClasspath: string | null;
  /** The franz-go test client binary. */
  franzGo: string | null;
  /** A Chromium executable for playwright-core (the web console's browser test). */
  chromium: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    clients: ProvisionedClients;
  }
}

/** The provisioned clients; throws when the file runs without the provisioning globalSetup. */
export function clients(): ProvisionedClients {
  const provided = inject('clients') as ProvisionedClients | undefined;
  if (provided === undefined) throw new Error('no provisioned clients: run through vitest.config.ts (npm test), whose globalSetup provisions them');
  return provided;
}
