import { Kafka, logLevel, type Consumer, type EachMessagePayload } from 'kafkajs';

export function kafkaClient(bootstrap: string, clientId = 'kmc-test'): Kafka {
  return new Kafka({ clientId, brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
}

/** Polls `predicate` every 50 ms until it is true or `ms` passes. */
export async function waitFor(predicate: () => boolean, ms = 60_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function groupConsumer(kafka: Kafka, groupId: string): Consumer {
  return kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 300, rebalanceTimeout: 10000, maxWaitTimeInMs: 200, retry: { retries: 8 } });
}

export type { EachMessagePayload };
