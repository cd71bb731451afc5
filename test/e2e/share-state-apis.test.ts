/**
 * The share coordinator's APIs (83-87) over the raw protocol, as Kafka 4.3.1's
 * `ShareCoordinatorShard` answers them: initialize, read, write (batches combined, start offset
 * pruning), summary, delete, state epoch fencing, uninitialized and unknown partitions.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';

describe('share coordinator APIs (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  it('initialize, read, write, summarize and delete a share partition state', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-share-state-');
    const topic = await server.broker.topics.create('t', 2);
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    const topicId = topic.id;
    const read = () => c.send(84, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: -1 }] }] });

    expect((await read()).results).toEqual([{ topicId, partitions: [{ partition: 1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Read operation on uninitialized share partition not allowed.', stateEpoch: 0, startOffset: 0n, stateBatches: [] }] }]);
    const init = await c.send(83, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 1, stateEpoch: 3, startOffset: 10n }, { partition: 7, stateEpoch: 3, startOffset: 0n }] }] });
    expect(init.results).toEqual([{ topicId, partitions: [
      { partition: 1, errorCode: 0, errorMessage: null },
      { partition: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' },
    ] }]);
    expect((await read()).results[0]!.partitions[0]).toEqual({ partition: 1, errorCode: 0, errorMessage: null, stateEpoch: 3, startOffset: 10n, stateBatches: [] });

    const write = (stateEpoch: number, startOffset: bigint, stateBatches: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number }>) =>
      c.send(85, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 1, stateEpoch, leaderEpoch: 0, startOffset, deliveryCompleteCount: 2, stateBatches }] }] });
    expect((await write(3, 10n, [{ firstOffset: 10n, lastOffset: 14n, deliveryState: 0, deliveryCount: 1 }])).results[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await write(3, 11n, [{ firstOffset: 12n, lastOffset: 12n, deliveryState: 2, deliveryCount: 1 }])).results[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await read()).results[0]!.partitions[0]).toMatchObject({ startOffset: 11n, stateBatches: [
      { firstOffset: 11n, lastOffset: 11n, deliveryState: 0, deliveryCount: 1 },
      { firstOffset: 12n, lastOffset: 12n, deliveryState: 2, deliveryCount: 1 },
      { firstOffset: 13n, lastOffset: 14n, deliveryState: 0, deliveryCount: 1 },
    ] });
    // An older state epoch is fenced.
    expect((await write(2, 11n, [])).results[0]!.partitions[0]).toEqual({ partition: 1, errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: 'The share coordinator rejected the request because the share-group state epoch did not match.' });

    const summary = await c.send(87, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: 0 }, { partition: 0, leaderEpoch: 0 }] }] });
    expect(summary.results[0]!.partitions).toEqual([
      { partition: 1, errorCode: 0, errorMessage: null, stateEpoch: 3, leaderEpoch: 0, startOffset: 11n, deliveryCompleteCount: 2 },
      { partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1 },
    ]);
    const del = await c.send(86, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 1 }, { partition: 0 }] }] });
    expect(del.results[0]!.partitions).toEqual([{ partition: 1, errorCode: 0, errorMessage: null }, { partition: 0, errorCode: 0, errorMessage: null }]);
    expect((await read()).results[0]!.partitions[0]!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    // Kafka answers no results for an empty group id.
    expect((await c.send(84, 0, { groupId: '', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: -1 }] }] })).results).toEqual([]);
  });
});
