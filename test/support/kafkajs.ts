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

/**
 * The round trip every client test does: produces `values` to `topic` (one partition), consumes them
 * in `group` from the beginning and waits until `committed()` (the server's committed offset of
 * partition 0) reaches their count. Resolves with the values consumed, in order; the producer and
 * consumer go into `cleanups`.
 */
export async function produceConsumeCommit(
  kafka: Kafka,
  topic: string,
  group: string,
  values: readonly string[],
  committed: () => bigint | undefined,
  cleanups: Array<() => Promise<unknown> | void>,
): Promise<string[]> {
  const producer = kafka.producer();
  await producer.connect();
  cleanups.push(() => producer.disconnect());
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  const consumer = groupConsumer(kafka, group);
  cleanups.push(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  await waitFor(() => seen.length === values.length, 60_000, `${values.length} messages of ${topic}`);
  await waitFor(() => committed() === BigInt(values.length), 60_000, `the commit of ${group}`);
  return seen;
}
