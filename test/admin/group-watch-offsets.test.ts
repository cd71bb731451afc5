/**
 * What the group watch (src/admin/group-watch.ts) reads of a group's offsets on each look: a group
 * of thousands of partitions costs a look only what changed (adversarial trial, session 20: 36,000
 * offsets cost ~75 ms of CPU per look, every second, also idle). Its offsets are read again only
 * when they changed or a partition of their topics moved; its lag is charted per partition for the
 * first 100, then as one sum of the others, a sample a second at most. Commits on the timeline as
 * they happen: a transaction's once its COMMIT marker is written, never an aborted one's, and an
 * OffsetCommit answered with an error for some partitions with the others (adversarial trial,
 * session 21). Real server, raw requests, looks only when told to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { GroupWatch } from '../../src/admin/group-watch.js';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { createTopics, offsetCommit, topic, watchCall } from '../support/big-requests.js';
import { initProducer } from '../support/raw-transactions.js';
import { until } from '../support/until.js';

const GROUP = 'wide-group';
const PARTITIONS = 150;

describe('GroupWatch on a group of many partitions', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: RawClient;
  let watch: GroupWatch;
  let reads: { calls: number };
  /** The lag samples' wall clock (ms), moved by the test. */
  let wall = 1_000_000;

  const commit = (partitions: Array<[number, bigint]>) =>
    client.send(8, 8, offsetCommit(GROUP, [{ name: 'wide', partitions: partitions.map(([partitionIndex, committedOffset]) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' })) }]));
  const produce = async (partition: number, count: number) => {
    const records = encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: Array.from({ length: count }, () => ({ key: null, value: Buffer.from('v') })) });
    const res = await client.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'wide', topicId: ZERO_UUID, partitionData: [{ index: partition, records }] }] });
    expect(res.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
  };
  const lastLag = () => watch.history(GROUP)!.lag.samples.at(-1)!.lag;
  /** A transaction of its own that commits `partition` at `offset` for GROUP (TxnOffsetCommit), then commits or aborts; resolves once its marker is applied. */
  const txnCommit = async (transactionalId: string, partition: number, offset: bigint, commit: boolean) => {
    const { producerId, producerEpoch } = await initProducer(client, transactionalId);
    expect((await client.send(25, 3, { transactionalId, producerId, producerEpoch, groupId: GROUP })).errorCode).toBe(ErrorCode.NONE);
    const partitions = [{ partitionIndex: partition, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }];
    const sent = await client.send(28, 3, { transactionalId, groupId: GROUP, producerId, producerEpoch, generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'wide', partitions }] });
    expect(sent.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    expect((await client.send(26, 3, { transactionalId, producerId, producerEpoch, committed: commit })).errorCode).toBe(ErrorCode.NONE);
    await until(() => server.broker.offsets.pendingOffsetsOf(GROUP).length === 0, 'the marker applied');
  };

  beforeAll(async () => {
    server = await startTestServer({ clock: 'manual' });
    client = await RawClient.connect(server.port);
    expect((await client.send(19, 7, createTopics([topic('wide', PARTITIONS)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const committed = await commit(Array.from({ length: PARTITIONS }, (_, i): [number, bigint] => [i, 0n]));
    expect(new Set(committed.topics[0]!.partitions.map((p: { errorCode: number }) => p.errorCode))).toEqual(new Set([ErrorCode.NONE]));
    reads = watchCall(server.broker.offsets, 'offsetsOf');
    watch = new GroupWatch({ broker: server.broker, faults: server.faults, clock: server.clock, sampleIntervalMs: 0, settleMs: 3_600_000, wallClock: () => wall });
    await watch.sample();
  });
  afterAll(async () => {
    watch.close();
    client.close();
    await server.stop();
  });

  it('charts the first 100 partitions each and the others as one sum', () => {
    const { lag } = watch.history(GROUP)!;
    expect(lag.partitions).toHaveLength(101);
    expect(lag.partitions.slice(0, 3)).toEqual(['wide-0', 'wide-1', 'wide-2']);
    expect(lag.partitions.slice(-2)).toEqual(['wide-99', 'other partitions']);
    expect(lastLag()).toEqual(new Array(101).fill(0));
    expect(reads.calls).toBe(1);
  });

  it('reads nothing of an idle group again; a produce makes it compute the lags again, a commit read the commits', async () => {
    const samples = watch.history(GROUP)!.lag.samples.length;
    await watch.touched({});
    await watch.touched({});
    expect(reads.calls).toBe(1);
    expect(watch.history(GROUP)!.lag.samples).toHaveLength(samples);

    await produce(2, 3);
    await produce(120, 2);
    await produce(149, 4);
    wall += 1000;
    await watch.touched({});
    expect(reads.calls).toBe(2);
    const lag = lastLag();
    expect(lag[2]).toBe(3);
    expect(lag[100]).toBe(6);
    expect(lag.filter((v) => v !== 0)).toEqual([3, 6]);
    expect(watch.history(GROUP)!.lag.samples).toHaveLength(samples + 1);

    // A change within a second of the last sample replaces it (looks after admin changes come faster).
    expect((await commit([[2, 3n], [149, 1n]])).topics[0]!.partitions.map((p: { errorCode: number }) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    wall += 999;
    await watch.touched({});
    expect(reads.calls).toBe(3);
    expect(lastLag()[2]).toBe(0);
    expect(lastLag()[100]).toBe(5);
    expect(watch.history(GROUP)!.lag.samples).toHaveLength(samples + 1);
    const history = watch.history(GROUP)!;
    expect(history.events.filter((e) => e.kind === 'commit').at(-1)).toMatchObject({ requests: 1, memberId: null, partitions: ['wide-2@3', 'wide-149@1'] });
    expect(history.lastCommitBy['wide-2']).toBeNull();

    await watch.touched({});
    expect(reads.calls).toBe(3);
  });

  it('a transactional commit shows once its COMMIT marker is written, as offsets no request committed; an aborted one never; a commit with a partition error shows with it', async () => {
    const events = () => watch.history(GROUP)!.events.filter((e) => e.kind === 'commit');
    const before = events().length;
    // A TxnOffsetCommit, then its abort: nothing committed, nothing on the timeline.
    await txnCommit('wide-tx-1', 7, 1n, false);
    await watch.touched({});
    expect(events()).toHaveLength(before);
    // Then one committed: its offset shows with the look after the marker, named by no request.
    await txnCommit('wide-tx-2', 7, 2n, true);
    await watch.touched({});
    expect(events()).toHaveLength(before + 1);
    expect(events().at(-1)).toMatchObject({ requests: 0, memberId: null, clientId: '', partitions: ['wide-7@2'], error: null });
    // An OffsetCommit of a known and an unknown partition commits the known one: it shows, with the error.
    const res = await commit([[8, 1n], [PARTITIONS + 5, 1n]]);
    expect(res.topics[0]!.partitions.map((p: { errorCode: number }) => p.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    await watch.touched({});
    expect(events().at(-1)).toMatchObject({ requests: 1, partitions: ['wide-8@1'], error: 'UNKNOWN_TOPIC_OR_PARTITION' });
  });
});
