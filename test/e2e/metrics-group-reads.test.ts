/**
 * `GET /metrics` reads each group's committed offsets once per scrape (it read them nine times:
 * each of the five group metrics summarized every group, which counted its offsets, and the four
 * offset metrics read them again), and writes the same bytes as before: the group series of a
 * fixed state below are the text the former writer produced, byte for byte.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopics, offsetCommit, topic } from '../support/big-requests.js';
import { kafkaClient } from '../support/kafkajs.js';
import { ErrorCode } from '../../src/protocol/errors.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;

const commit = (partitionIndex: number, offset: number) => ({ partitionIndex, committedOffset: BigInt(offset), committedLeaderEpoch: -1, committedMetadata: '' });

/** The group series of the state `beforeAll` makes, as the writer before this change wrote them. */
const EXPECTED = `# HELP kafka_consumergroup_current_offset Current Offset of a ConsumerGroup at Topic/Partition
# TYPE kafka_consumergroup_current_offset gauge
kafka_consumergroup_current_offset{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="0"} -1
kafka_consumergroup_current_offset{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="1"} 0
kafka_consumergroup_current_offset{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="2"} -1
kafka_consumergroup_current_offset{consumergroup="reads-a",topic="reads-t1",partition="0"} 2
kafka_consumergroup_current_offset{consumergroup="reads-a",topic="reads-t1",partition="1"} -1
kafka_consumergroup_current_offset{consumergroup="reads-a",topic="reads-t1",partition="2"} 1
kafka_consumergroup_current_offset{consumergroup="reads-a",topic="reads-t2",partition="0"} -1
kafka_consumergroup_current_offset{consumergroup="reads-a",topic="reads-t2",partition="1"} 1
kafka_consumergroup_current_offset{consumergroup="reads-b",topic="reads-t2",partition="0"} 3
kafka_consumergroup_current_offset{consumergroup="reads-b",topic="reads-t2",partition="1"} -1

# HELP kafka_consumergroup_current_offset_sum Current Offset of a ConsumerGroup at Topic for all partitions
# TYPE kafka_consumergroup_current_offset_sum gauge
kafka_consumergroup_current_offset_sum{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1"} -2
kafka_consumergroup_current_offset_sum{consumergroup="reads-a",topic="reads-t1"} 2
kafka_consumergroup_current_offset_sum{consumergroup="reads-a",topic="reads-t2"} 0
kafka_consumergroup_current_offset_sum{consumergroup="reads-b",topic="reads-t2"} 2

# HELP kafka_consumergroup_lag Current Approximate Lag of a ConsumerGroup at Topic/Partition
# TYPE kafka_consumergroup_lag gauge
kafka_consumergroup_lag{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="0"} -1
kafka_consumergroup_lag{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="1"} 2
kafka_consumergroup_lag{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1",partition="2"} -1
kafka_consumergroup_lag{consumergroup="reads-a",topic="reads-t1",partition="0"} 3
kafka_consumergroup_lag{consumergroup="reads-a",topic="reads-t1",partition="1"} -1
kafka_consumergroup_lag{consumergroup="reads-a",topic="reads-t1",partition="2"} 0
kafka_consumergroup_lag{consumergroup="reads-a",topic="reads-t2",partition="0"} -1
kafka_consumergroup_lag{consumergroup="reads-a",topic="reads-t2",partition="1"} 0
kafka_consumergroup_lag{consumergroup="reads-b",topic="reads-t2",partition="0"} 0
kafka_consumergroup_lag{consumergroup="reads-b",topic="reads-t2",partition="1"} -1

# HELP kafka_consumergroup_lag_sum Current Approximate Lag of a ConsumerGroup at Topic for all partitions
# TYPE kafka_consumergroup_lag_sum gauge
kafka_consumergroup_lag_sum{consumergroup="reads-\\"quoted\\"\\\\",topic="reads-t1"} 2
kafka_consumergroup_lag_sum{consumergroup="reads-a",topic="reads-t1"} 3
kafka_consumergroup_lag_sum{consumergroup="reads-a",topic="reads-t2"} 0
kafka_consumergroup_lag_sum{consumergroup="reads-b",topic="reads-t2"} 0

# HELP kafka_consumergroup_members Amount of members in a consumer group
# TYPE kafka_consumergroup_members gauge
kafka_consumergroup_members{consumergroup="reads-\\"quoted\\"\\\\"} 0
kafka_consumergroup_members{consumergroup="reads-a"} 0
kafka_consumergroup_members{consumergroup="reads-b"} 0`;

describe('GET /metrics and the groups committed offsets', () => {
  let server: Server;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0 });
    const kafka = await RawClient.connect(server.port);
    try {
      const created = await kafka.send(19, 7, createTopics([topic('reads-t1', 3), topic('reads-t2', 2)]));
      expect(created.topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
      const producer = kafkaClient(server.bootstrap, 'reads-producer').producer();
      await producer.connect();
      await producer.send({ topic: 'reads-t1', messages: [0, 0, 0, 0, 0, 1, 1, 2].map((partition, i) => ({ partition, value: `v${i}` })) });
      await producer.send({ topic: 'reads-t2', messages: [0, 0, 0, 1].map((partition, i) => ({ partition, value: `w${i}` })) });
      await producer.disconnect();
      for (const [groupId, topics] of [
        ['reads-a', [{ name: 'reads-t1', partitions: [commit(0, 2), commit(2, 1)] }, { name: 'reads-t2', partitions: [commit(1, 1)] }]],
        ['reads-b', [{ name: 'reads-t2', partitions: [commit(0, 3)] }]],
        ['reads-"quoted"\\', [{ name: 'reads-t1', partitions: [commit(1, 0)] }]],
      ] as const) {
        const res = await kafka.send(8, 8, offsetCommit(groupId, topics.map((t) => ({ name: t.name, partitions: [...t.partitions] }))));
        expect(res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))).toEqual(topics.flatMap((t) => t.partitions.map(() => ErrorCode.NONE)));
      }
    } finally {
      kafka.close();
    }
  });
  afterAll(async () => server.stop());

  it('reads each group once per scrape and writes the group series byte for byte as before', async () => {
    const offsets = server.broker.offsets;
    const original = offsets.offsetsOf.bind(offsets);
    const reads = new Map<string, number>();
    // Reads made for the scrape (by the group series, and by the summaries they ask for), not the console's look at the groups.
    offsets.offsetsOf = (groupId: string) => {
      if (new Error().stack!.includes('group-series')) reads.set(groupId, (reads.get(groupId) ?? 0) + 1);
      return original(groupId);
    };
    try {
      for (let scrape = 1; scrape <= 2; scrape++) {
        reads.clear();
        const res = await fetch(`${server.admin!.url}/metrics`);
        expect(res.status).toBe(200);
        const text = await res.text();
        const start = text.indexOf('# HELP kafka_consumergroup_current_offset ');
        const end = text.indexOf('\n\n', text.lastIndexOf('kafka_consumergroup_members{'));
        expect(text.slice(start, end === -1 ? undefined : end)).toBe(EXPECTED);
        expect(Object.fromEntries(reads)).toEqual({ 'reads-a': 1, 'reads-b': 1, 'reads-"quoted"\\': 1 });
      }
    } finally {
      offsets.offsetsOf = original;
    }
  });
});
