/**
 * Hostile input to the share coordinator's state APIs (83, 85) as any client may send them, then a
 * ShareFetch that loads that state into the share partition: the broker answers at once and
 * delivers the records the log holds; a negative partition is refused as Kafka 4.3.1 refuses it. (A state batch reaching far past the log end, or a start
 * offset far below the log start, was walked offset by offset and stalled the server for good.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const uuid = () => randomBytes(16).toString('base64url');

describe('share partition state from a hostile client', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(records: number) {
    const { server, dataDir } = await startClosableServer(cleanups, { time: new FakeTime() }, 'kmc-adv-share-');
    const topic = await server.broker.topics.create('t', 1);
    const partition = topic.partition(0)!;
    const appended = partition.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: Array.from({ length: records }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) })) }));
    if (!('durable' in appended)) throw new Error(appended.errorMessage);
    await appended.durable;
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return { server, c, topicId: topic.id, dataDir };
  }

  const shareFetch = (c: RawClient, topicId: string) =>
    c.send(78, 2, {
      groupId: 'g', memberId: uuid(), shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
      shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
      forgottenTopicsData: [],
    });

  const initialize = async (c: RawClient, topicId: string, startOffset: bigint) => {
    const r = await c.send(83, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, startOffset }] }] });
    expect(r.results[0]!.partitions[0]!.errorCode).toBe(0);
  };

  it('a state batch reaching 10^11 offsets past a 3-record log: the records are delivered with the written delivery count', async () => {
    const { server, c, topicId } = await setup(3);
    await initialize(c, topicId, 0n);
    const w = await c.send(85, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: 0, stateBatches: [{ firstOffset: 0n, lastOffset: 100_000_000_000n, deliveryState: 0, deliveryCount: 1 }] }] }] });
    expect(w.results[0]!.partitions[0]!.errorCode).toBe(0);
    const res = await shareFetch(c, topicId);
    expect(res.responses[0]!.partitions[0]).toMatchObject({ errorCode: 0, acquiredRecords: [{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }] });
    expect(server.broker.shares.get('g', topicId, 0)!.spso).toBe(0n);
    expect(server.broker.shares.get('g', topicId, 0)!.speo).toBe(2n);
  });

  it('InitializeShareGroupState of partition -1: INVALID_REQUEST as for the other state APIs, nothing written', async () => {
    const { c, topicId, dataDir } = await setup(1);
    await initialize(c, topicId, 0n);
    // Bytes in __share_group_state's segments.
    const written = () => readdirSync(dataDir).filter((d) => d.startsWith('__share_group_state-'))
      .flatMap((d) => readdirSync(join(dataDir, d)).filter((f) => f.endsWith('.log')).map((f) => statSync(join(dataDir, d, f)).size))
      .reduce((a, b) => a + b, 0);
    const before = written();
    const r = await c.send(83, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: -1, stateEpoch: 0, startOffset: 0n }] }] });
    expect(r.results).toEqual([{ topicId, partitions: [{ partition: -1, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'The partition id cannot be a negative number.' }] }]);
    expect(before).toBeGreaterThan(0);
    expect(written()).toBe(before);
  });

  it('a start offset of -10^12: the share partition starts at the log start offset', async () => {
    const { server, c, topicId } = await setup(2);
    await initialize(c, topicId, -1_000_000_000_000n);
    const res = await shareFetch(c, topicId);
    expect(res.responses[0]!.partitions[0]).toMatchObject({ errorCode: 0, acquiredRecords: [{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }] });
    expect(server.broker.shares.get('g', topicId, 0)!.spso).toBe(0n);
  });
});
