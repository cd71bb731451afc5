/**
 * End to end with @platformatic/kafka (1.x: 2.x needs Node 22), classic and KIP-848
 * (`groupProtocol: 'consumer'`) consumer groups, in-process: the scenario of
 * test/e2e/clients/group-resume.ts (produce, consume in a group, commit, close, a new consumer
 * resumes at the committed offsets). It only speaks recent flexible versions, with no fallback.
 * The API versions it used go to test/clients/api-versions/platformatic-kafka.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Consumer, GroupProtocols, Producer, stringDeserializers, stringSerializers, type Message } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';

import {
  PARTITIONS,
  REPO_ROOT,
  runGroupResumeScenario,
  writeApiVersions,
  type ApiVersionRecorder,
  type ClientDriver,
  type ClientRecord,
  type GroupProtocol,
} from './clients/group-resume.js';

const LINGER_MS = 1500;
// The package's exports map hides package.json; read the installed one.
const platformaticVersion = (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', '@platformatic', 'kafka', 'package.json'), 'utf8')) as { version: string }).version;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

const driver: ClientDriver = {
  clientIdPrefix: 'kmc-platformatic',
  async produce({ bootstrap, topic, count, keyPrefix }) {
    const producer = new Producer({
      clientId: 'kmc-platformatic-producer',
      bootstrapBrokers: [bootstrap],
      serializers: stringSerializers,
      acks: -1,
      retries: 3,
    });
    try {
      const messages = [...Array(count).keys()].map((i) => ({ topic, key: `${keyPrefix}-${i}`, value: `value-${i}`, partition: i % PARTITIONS }));
      const result = await withTimeout(producer.send({ messages }), 30_000, 'produce');
      // One base offset per partition batch comes back; count what was sent instead.
      expect(result.offsets?.map((o) => o.partition).sort()).toEqual([...Array(PARTITIONS).keys()]);
      const produced: Record<string, number> = {};
      for (const m of messages) produced[String(m.partition)] = (produced[String(m.partition)] ?? 0) + 1;
      return { produced };
    } finally {
      await producer.close();
    }
  },
  async consume({ bootstrap, topic, group, count, protocol, round }) {
    const common = {
      clientId: `kmc-platformatic-consumer-${round}`,
      bootstrapBrokers: [bootstrap],
      groupId: group,
      deserializers: stringDeserializers,
      maxWaitTime: 200,
      retries: 5,
    };
    const consumer =
      protocol === 'consumer'
        ? new Consumer({ ...common, groupProtocol: GroupProtocols.CONSUMER })
        : new Consumer({ ...common, groupProtocol: GroupProtocols.CLASSIC, sessionTimeout: 10_000, heartbeatInterval: 500, rebalanceTimeout: 10_000 });
    let closed = false;
    try {
      const stream = await withTimeout(
        consumer.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: false }),
        20_000,
        'consume() (join the group)',
      );
      const messages: Array<Message<string, string, string, string>> = [];
      await withTimeout(
        new Promise<void>((resolvePromise, reject) => {
          let linger: NodeJS.Timeout | null = null;
          stream.on('data', (m: Message<string, string, string, string>) => {
            messages.push(m);
            if (messages.length >= count && linger === null) linger = setTimeout(resolvePromise, LINGER_MS);
          });
          stream.on('error', reject);
        }),
        30_000,
        `consume ${count} messages`,
      ).catch((err: Error) => {
        throw new Error(`${err.message}; got ${messages.length}: ${JSON.stringify(messages.map((m) => `${m.partition}@${m.offset}`))}`);
      });

      // Commit the last message of each partition (Message.commit commits offset + 1).
      const last = new Map<number, Message<string, string, string, string>>();
      for (const m of messages) if ((last.get(m.partition)?.offset ?? -1n) < m.offset) last.set(m.partition, m);
      for (const m of last.values()) await withTimeout(Promise.resolve(m.commit()), 10_000, 'commit');

      const committed = await withTimeout(
        consumer.listCommittedOffsets({ topics: [{ topic, partitions: [...Array(PARTITIONS).keys()] }] }),
        10_000,
        'listCommittedOffsets',
      );
      const records: ClientRecord[] = messages.map((m) => ({ partition: m.partition, offset: Number(m.offset), key: m.key, value: m.value }));
      await stream.close();
      await withTimeout(consumer.close(), 10_000, 'consumer.close (leave the group)');
      closed = true;
      return { records, committed: (committed.get(topic) ?? []).map((offset, partition) => ({ partition, offset: Number(offset) })) };
    } finally {
      if (!closed) await new Promise<void>((done) => consumer.close(true, () => done()));
    }
  },
};

const recorded: Array<[GroupProtocol, ApiVersionRecorder]> = [];

afterAll(() => {
  for (const [protocol, recorder] of recorded) writeApiVersions('platformatic-kafka', platformaticVersion, protocol, recorder);
});

describe(`@platformatic/kafka ${platformaticVersion} against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'plt-classic', group: 'plt-classic-group' });
    recorded.push(['classic', recorder]);
  }, 120_000);

  it("KIP-848 consumer group (groupProtocol: 'consumer'): same scenario over ConsumerGroupHeartbeat", async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'consumer', { topic: 'plt-848', group: 'plt-848-group' });
    recorded.push(['consumer', recorder]);
  }, 120_000);
});
