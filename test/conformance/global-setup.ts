/**
 * vitest globalSetup of the conformance suite: one Kafka 4.3.1 broker for every scenario file
 * of the run, and one with SASL and ACLs for the security scenarios, stopped at the end.
 * `KMC_CONFORMANCE_KAFKA_PORT=<port>` and `KMC_CONFORMANCE_KAFKA_SECURE_PORT=<port>` use brokers
 * already running on 127.0.0.1 instead (started with the configs of oracle.ts).
 */
import type { TestProject } from 'vitest/node';
import { adminLogin, freePorts, startKafka, waitForApiVersions, waitForCoordinator } from './oracle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaPort: number;
    /** The SASL/ACL broker (oracle.ts `SECURE_CONFIG`). */
    kafkaSecurePort: number;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const existing = process.env.KMC_CONFORMANCE_KAFKA_PORT;
  const existingSecure = process.env.KMC_CONFORMANCE_KAFKA_SECURE_PORT;
  if (existing && existingSecure) {
    const [port, securePort] = [Number(existing), Number(existingSecure)];
    await waitForApiVersions(port, 30_000);
    await waitForCoordinator(port, 30_000);
    await waitForApiVersions(securePort, 30_000, () => true, adminLogin);
    await waitForCoordinator(securePort, 30_000, adminLogin);
    project.provide('kafkaPort', port);
    project.provide('kafkaSecurePort', securePort);
    return async () => {};
  }
  const started = Date.now();
  // Both brokers start together: the second costs little more than its own JVM.
  const ports = await freePorts(4);
  const started_ = await Promise.allSettled([startKafka({ ports: [ports[0]!, ports[1]!] }), startKafka({ secure: true, ports: [ports[2]!, ports[3]!] })]);
  const failed = started_.flatMap((r, i) => (r.status === 'rejected' ? [`${i === 0 ? 'plain' : 'secure'} broker: ${String(r.reason)}`] : []));
  if (failed.length > 0) {
    await Promise.all(started_.map((r) => (r.status === 'fulfilled' ? r.value.stop() : undefined)));
    throw new Error(failed.join('\n'));
  }
  const [kafka, secure] = started_.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<typeof startKafka>>>).value) as [Awaited<ReturnType<typeof startKafka>>, Awaited<ReturnType<typeof startKafka>>];
  console.log(`conformance: Kafka 4.3.1 ready on 127.0.0.1:${kafka.port} and (SASL_PLAINTEXT, ACLs) 127.0.0.1:${secure.port} in ${Date.now() - started} ms`);
  project.provide('kafkaPort', kafka.port);
  project.provide('kafkaSecurePort', secure.port);
  return async () => {
    await Promise.all([kafka.stop(), secure.stop()]);
  };
}
