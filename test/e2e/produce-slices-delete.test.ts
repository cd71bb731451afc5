/**
 * A Produce worked in slices (`PRODUCE_SLICE_PARTITIONS` partitions per turn of the event loop)
 * while another connection deletes, or deletes and creates again, a topic it names: the partitions
 * of the deleted topic are not acknowledged (Kafka's ReplicaManager looks the partition up at the
 * append, `getPartitionOrException`: UNKNOWN_TOPIC_OR_PARTITION once the topic is gone), and a
 * record acknowledged is one a consumer of that topic name can read.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { createTopics, nextTurn, topic, watchCall } from '../support/big-requests.js';
import { PRODUCE_SLICE_PARTITIONS } from '../../src/apis/00-produce.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const records = (value: string) => encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: [{ key: null, value: Buffer.from(value) }] });
const partitionData = (count: number, value: string) => Array.from({ length: count }, (_, index) => ({ index, records: records(value) }));
const produce = (topics: Array<{ name: string; count: number }>, value: string) => ({
  transactionalId: null,
  acks: 1,
  timeoutMs: 30000,
  topicData: topics.map(({ name, count }) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: partitionData(count, value) })),
});
const latest = (name: string) => ({ replicaId: -1, isolationLevel: 0, timeoutMs: 30000, topics: [{ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });

// In memory: 4,097 partitions on disk take half a minute to create here; the deleted partition's
// log is closed the same way in both modes (before the fix, both answered KAFKA_STORAGE_ERROR).
describe('a Produce in slices and a DeleteTopics of a topic it names', () => {
  it.each([
    ['deleted', false],
    ['deleted and created again', true],
  ])('the topic %s between its check and its append: its partition answers UNKNOWN_TOPIC_OR_PARTITION, the others are appended', async (_what, recreate) => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const big = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => big.close(), () => other.close());
    const filler = PRODUCE_SLICE_PARTITIONS * 4;
    expect((await other.send(19, 7, createTopics([topic('filler', filler), topic('doomed', 1)]))).topics.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    // 'doomed' comes last: checked in the last slice of checks, appended in the last slice of appends.
    const checked = watchCall(server.broker.topics.get('doomed')!, 'partition');
    const order: string[] = [];
    const produced = big.send(0, 9, produce([{ name: 'filler', count: filler }, { name: 'doomed', count: 1 }], 'big')).then((r) => {
      order.push('big');
      return r;
    });
    // Checked once per turn: 'doomed' has passed its checks; its append is slices away.
    while (!checked.called && order.length === 0) await nextTurn();
    expect(checked.called).toBe(true);
    const deleted = await other.send(20, 5, { topicNames: ['doomed'], topics: [], timeoutMs: 30000 });
    expect(deleted.responses.map((r) => [r.name, r.errorCode])).toEqual([['doomed', ErrorCode.NONE]]);
    if (recreate) expect((await other.send(19, 7, createTopics([topic('doomed', 1)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    order.push('delete');
    const res = await produced;
    expect(order).toEqual(['delete', 'big']);
    expect(res.responses.map((t) => [t.name, t.partitionResponses.length])).toEqual([['filler', filler], ['doomed', 1]]);
    expect(res.responses[0]!.partitionResponses.every((p, i) => p.index === i && p.errorCode === ErrorCode.NONE && p.baseOffset === 0n)).toBe(true);
    expect(res.responses[1]!.partitionResponses.map((p) => [p.index, p.errorCode, p.baseOffset])).toEqual([[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n]]);
    // What a client of the topic named 'doomed' sees now: nothing acknowledged is missing.
    const listed = await other.send(2, 7, latest('doomed'));
    expect(listed.topics[0]!.partitions.map((p) => [p.errorCode, p.offset])).toEqual([recreate ? [ErrorCode.NONE, 0n] : [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1n]]);
  });
});
