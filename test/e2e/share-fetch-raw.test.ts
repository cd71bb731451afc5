/**
 * ShareFetch (78) and ShareAcknowledge (79) over the raw protocol against a real server with real
 * files: share sessions and their epochs, acquisition with acquisition locks on a fake clock,
 * delivery counts, acknowledgements piggy-backed and standalone, the delivery count limit, the
 * errors Kafka 4.3.1 answers, release on connection close, and the state kept in
 * `__share_group_state` across a restart. The share partitions are initialized as the share group
 * coordinator does it (the persister's InitializeShareGroupState).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../support/until.js';
import { randomBytes } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatch, decodeRecords } from '../../src/records/record-batch.js';
import type { ShareFetchRequest } from '../../src/protocol/messages/ShareFetchRequest.js';
import type { ShareFetchResponse } from '../../src/protocol/messages/ShareFetchResponse.js';

const uuid = () => randomBytes(16).toString('base64url');
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

type Ack = { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] };

describe('ShareFetch / ShareAcknowledge (raw protocol)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(options: { time?: FakeTime; dataDir?: string } = {}) {
    const time = options.time ?? new FakeTime();
    const started = await startClosableServer(cleanups, { time, ...(options.dataDir ? { dataDir: options.dataDir } : {}) }, 'kmc-share-');
    return { ...started, time };
  }

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  /** Appends one batch per entry of `sizes` (values `v<offset>`) to partition 0 of `topic`. */
  async function produce(server: ServerHandle, topic: string, sizes: number[]) {
    const partition = server.broker.topics.get(topic)!.partition(0)!;
    for (const n of sizes) {
      const first = partition.logEndOffset;
      const records = Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${first + BigInt(i)}`) }));
      const appended = partition.appendProduced(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records }));
      if (!('durable' in appended)) throw new Error(appended.errorMessage);
      await appended.durable;
    }
  }

  function fetchReq(groupId: string, memberId: string, epoch: number, topicId: string, extra: Partial<ShareFetchRequest> = {}, acks: Ack[] = []): ShareFetchRequest {
    return {
      groupId, memberId, shareSessionEpoch: epoch, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
      shareAcquireMode: 0, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }],
      forgottenTopicsData: [],
      ...extra,
    };
  }

  const partitionOf = (res: ShareFetchResponse) => res.responses[0]?.partitions[0];
  const valuesOf = (res: ShareFetchResponse) => {
    const p = partitionOf(res);
    if (!p?.records || p.records.length === 0) return [];
    const out: string[] = [];
    let rest = p.records;
    while (rest.length > 0) {
      const size = rest.readInt32BE(8) + 12;
      for (const r of decodeRecords(rest.subarray(0, size))) out.push(`${r.offset}=${r.value?.toString()}`);
      rest = rest.subarray(size);
    }
    return out;
  };

  async function setup(options: { time?: FakeTime; dataDir?: string; startOffset?: bigint; sizes?: number[] } = {}) {
    const started = await start(options);
    const { server } = started;
    const topic = server.broker.topics.get('t') ?? (await server.broker.topics.create('t', 1));
    if (options.sizes) await produce(server, 't', options.sizes);
    const init = await server.broker.sharePersister.initializeState('g', [{ topicId: topic.id, partition: 0, stateEpoch: 0, startOffset: options.startOffset ?? 0n }]);
    expect(init).toEqual([{ topicId: topic.id, partition: 0, errorCode: 0, errorMessage: null }]);
    return { ...started, topicId: topic.id };
  }

  it('a share partition the group coordinator has not initialized answers UNKNOWN_SERVER_ERROR with the share coordinator message', async () => {
    const { server } = await start();
    const topic = await server.broker.topics.create('t', 1);
    const c = await client(server);
    const res = await c.send(78, 2, fetchReq('g', uuid(), 0, topic.id));
    expect(res.errorCode).toBe(0);
    expect(partitionOf(res)).toMatchObject({ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: 'Read operation on uninitialized share partition not allowed.', acquiredRecords: [] });
  });

  it('acquires whole batches up to MaxRecords, redelivers a RELEASEd record with delivery count 2, never a REJECTed or ACCEPTed one', async () => {
    const { server, topicId } = await setup({ sizes: [3, 2, 4] });
    const c = await client(server);
    const member = uuid();
    // batch_optimized: MaxRecords 4 takes the first batch (0-2) and the whole second (3-4).
    let res = await c.send(78, 2, fetchReq('g', member, 0, topicId, { maxRecords: 4 }));
    expect(res.acquisitionLockTimeoutMs).toBe(30000);
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 4n, deliveryCount: 1 }]);
    // A partition served names no leader, as Kafka 4.3.1's ShareFetchUtils leaves it.
    expect(partitionOf(res)?.currentLeader).toEqual({ leaderId: 0, leaderEpoch: 0 });
    expect(valuesOf(res)).toEqual(['0=v0', '1=v1', '2=v2', '3=v3', '4=v4']);
    // Piggy-backed: accept 0-1, release 2, reject 3, accept 4; the same fetch acquires 2 again and 5-8.
    res = await c.send(78, 2, fetchReq('g', member, 1, topicId, {}, [
      { firstOffset: 0n, lastOffset: 4n, acknowledgeTypes: [ACCEPT, ACCEPT, RELEASE, REJECT, ACCEPT] },
    ]));
    expect(partitionOf(res)).toMatchObject({ errorCode: 0, acknowledgeErrorCode: 0 });
    expect(partitionOf(res)?.acquiredRecords).toEqual([
      { firstOffset: 2n, lastOffset: 2n, deliveryCount: 2 },
      { firstOffset: 5n, lastOffset: 8n, deliveryCount: 1 },
    ]);
    // The batch of 3-4 travels between them: Kafka sends the log from the first record acquired to the last.
    expect(valuesOf(res)).toEqual(['0=v0', '1=v1', '2=v2', '3=v3', '4=v4', '5=v5', '6=v6', '7=v7', '8=v8']);
    const sp = server.broker.shares.get('g', topicId, 0)!;
    expect(sp.spso).toBe(2n);
    // Offsets 3 and 4 are settled already: acknowledging them again is INVALID_RECORD_STATE, and nothing changes.
    const again = await c.send(79, 2, { groupId: 'g', memberId: member, shareSessionEpoch: 2, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 2n, lastOffset: 8n, acknowledgeTypes: [ACCEPT] }] }] }] });
    expect(again.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: 'The offset cannot be acknowledged. The offset is not acquired.' });
    expect(sp.counts()).toEqual({ acquired: 5, available: 0, acknowledged: 1, archived: 1 });
    // Standalone acknowledgement of what is held: the start offset moves past the end.
    const ack = await c.send(79, 2, { groupId: 'g', memberId: member, shareSessionEpoch: 3, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] }, { firstOffset: 5n, lastOffset: 8n, acknowledgeTypes: [ACCEPT] }] }] }] });
    expect(ack).toMatchObject({ errorCode: 0, acquisitionLockTimeoutMs: 30000, responses: [{ topicId, partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }] }] });
    expect(sp.spso).toBe(9n);
    // Nothing left: an incremental fetch names no partition.
    res = await c.send(78, 2, fetchReq('g', member, 4, topicId, { topics: [] }));
    expect(res).toMatchObject({ errorCode: 0, responses: [] });
  });

  it('record_limit acquires exactly MaxRecords, splitting a batch', async () => {
    const { server, topicId } = await setup({ sizes: [5] });
    const c = await client(server);
    const res = await c.send(78, 2, fetchReq('g', uuid(), 0, topicId, { maxRecords: 2, shareAcquireMode: 1 }));
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
  });

  it('a batch cut short by share.partition.max.record.locks is still sent with the records acquired from it', async () => {
    const { server, topicId } = await setup({ sizes: [150] });
    await server.broker.configs.store.setGroupConfigs('g', { 'share.partition.max.record.locks': '100' });
    const c = await client(server);
    const res = await c.send(78, 2, fetchReq('g', uuid(), 0, topicId, { maxRecords: 500 }));
    const data = partitionOf(res)!;
    expect(data.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 99n, deliveryCount: 1 }]);
    // The batch holding offsets 0-149 travels with the answer (was: no bytes, so the client read 0-99 as gaps).
    expect(data.records!.length).toBe(server.broker.topics.get('t')!.partition(0)!.log.read(0n, 1 << 20, true)[0]!.length);
  });

  it('an acquisition lock that times out releases the records to another member; at the delivery count limit they are archived', async () => {
    const time = new FakeTime();
    const { server, topicId } = await setup({ time, sizes: [2] });
    await server.broker.configs.store.setGroupConfigs('g', { 'share.delivery.count.limit': '2', 'share.record.lock.duration.ms': '15000' });
    const a = await client(server);
    const b = await client(server);
    const ma = uuid();
    const mb = uuid();
    let res = await a.send(78, 2, fetchReq('g', ma, 0, topicId));
    expect(res.acquisitionLockTimeoutMs).toBe(15000);
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
    res = await b.send(78, 2, fetchReq('g', mb, 0, topicId));
    expect(partitionOf(res)?.acquiredRecords).toEqual([]);
    time.advance(14999);
    res = await b.send(78, 2, fetchReq('g', mb, 1, topicId));
    expect(res.responses).toEqual([]);
    time.advance(1);
    await until(() => server.broker.shares.get('g', topicId, 0)!.counts().available === 2 && server.broker.shares.get('g', topicId, 0)!.nextFetchOffset() === 0n);
    res = await b.send(78, 2, fetchReq('g', mb, 2, topicId));
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 2 }]);
    // The owner's lock is gone: its acknowledgement is refused.
    const late = await a.send(79, 2, { groupId: 'g', memberId: ma, shareSessionEpoch: 1, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }] }] }] });
    expect(late.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD_STATE, errorMessage: 'Member is not the owner of offset' });
    // b releases: delivery count 2 is the limit, so both are archived and the start offset moves on.
    const rel = await b.send(79, 2, { groupId: 'g', memberId: mb, shareSessionEpoch: 3, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }] }] }] });
    expect(rel.responses[0]!.partitions[0]!.errorCode).toBe(0);
    expect(server.broker.shares.get('g', topicId, 0)!.spso).toBe(2n);
    expect(server.broker.shareCoordinator.stateOf('g', topicId, 0)).toMatchObject({ stateBatches: [{ firstOffset: 0n, lastOffset: 1n, deliveryState: 4, deliveryCount: 2 }] });
  });

  it("answers Kafka's session and acknowledgement errors", async () => {
    const { server, topicId } = await setup({ sizes: [3] });
    const c = await client(server);
    const m = uuid();
    expect((await c.send(78, 2, fetchReq('g', '', 0, topicId))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(78, 2, fetchReq('g', 'x'.repeat(37), 0, topicId))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await c.send(78, 2, fetchReq('g', m, 1, topicId))).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect((await c.send(78, 2, fetchReq('g', m, -1, topicId))).errorCode).toBe(ErrorCode.SHARE_SESSION_NOT_FOUND);
    expect((await c.send(78, 2, fetchReq('g', m, 0, topicId, {}, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    const first = await c.send(78, 2, fetchReq('g', m, 0, topicId, { maxRecords: 1, shareAcquireMode: 1 }));
    expect(partitionOf(first)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 0n, deliveryCount: 1 }]);
    expect((await c.send(78, 2, fetchReq('g', m, 5, topicId))).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    const ackAt = (epoch: number, batches: Ack[], isRenewAck = false) =>
      c.send(79, 2, { groupId: 'g', memberId: m, shareSessionEpoch: epoch, isRenewAck, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: batches }] }] });
    expect((await ackAt(0, [])).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    expect((await ackAt(7, [])).errorCode).toBe(ErrorCode.INVALID_SHARE_SESSION_EPOCH);
    // Malformed batches: INVALID_REQUEST on the partition, no message.
    let res = await ackAt(1, [{ firstOffset: 1n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]);
    expect(res.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: null });
    res = await ackAt(2, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [4] }]);
    expect(res.responses[0]!.partitions[0]!.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    // Offset 1 is in the log but was never acquired.
    res = await ackAt(3, [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }]);
    expect(res.responses[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Batch record not found. The first offset in request is past acquired records.' });
    // RENEW (v2, IsRenewAck) keeps the record acquired.
    res = await ackAt(4, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [4] }], true);
    expect(res.responses[0]!.partitions[0]!.errorCode).toBe(0);
    res = await ackAt(5, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]);
    expect(res.responses[0]!.partitions[0]!.errorCode).toBe(0);
    res = await ackAt(6, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]);
    expect(res.responses[0]!.partitions[0]!.errorCode).toBe(0); // below the start offset now: nothing to do, as Kafka
    // A renew-only ShareFetch must carry zero limits.
    const renew = await c.send(78, 2, fetchReq('g', m, 7, topicId, { isRenewAck: true }));
    expect(renew.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('a partition named twice is fetched, acknowledged and answered once, with the batches of its last entry (Kafka keeps them in a map)', async () => {
    const { server, topicId } = await setup({ sizes: [4] });
    const c = await client(server);
    const m = uuid();
    const twice = (acks: [Ack[], Ack[]]) => [{ topicId, partitions: acks.map((a) => ({ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: a })) }];
    // A new session naming the partition twice: acquired once, one answer.
    let res = await c.send(78, 2, fetchReq('g', m, 0, topicId, { topics: twice([[], []]) }));
    expect(res.responses).toHaveLength(1);
    expect(res.responses[0]!.partitions).toHaveLength(1);
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }]);
    const sp = server.broker.shares.get('g', topicId, 0)!;
    // ShareAcknowledge: REJECT 0 then ACCEPT 0-1: only the last entry applies (before: 0 rejected,
    // then INVALID_RECORD_STATE for it, two answers).
    const ack = await c.send(79, 2, {
      groupId: 'g', memberId: m, shareSessionEpoch: 1, isRenewAck: false,
      topics: [{ topicId, partitions: [
        { partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [REJECT] }] },
        { partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }] },
      ] }],
    });
    expect(ack.responses).toHaveLength(1);
    expect(ack.responses[0]!.partitions).toHaveLength(1);
    expect(ack.responses[0]!.partitions[0]).toMatchObject({ partitionIndex: 0, errorCode: 0, errorMessage: null });
    expect(sp.counts()).toEqual({ acquired: 2, available: 0, acknowledged: 0, archived: 0 });
    expect(sp.spso).toBe(2n);
    // ShareFetch: RELEASE 2 in the first entry, ACCEPT 2-3 in the second, a third with no batches:
    // the second's apply, one answer.
    res = await c.send(78, 2, fetchReq('g', m, 2, topicId, { topics: [{ topicId, partitions: [
      { partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [{ firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [RELEASE] }] },
      { partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [{ firstOffset: 2n, lastOffset: 3n, acknowledgeTypes: [ACCEPT] }] },
      { partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] },
    ] }] }));
    expect(res.responses[0]!.partitions).toHaveLength(1);
    expect(partitionOf(res)).toMatchObject({ acknowledgeErrorCode: 0, acquiredRecords: [] });
    expect(sp.spso).toBe(4n);
  });

  it('a closed connection ends its share session and releases what its member held', async () => {
    const { server, topicId } = await setup({ sizes: [3] });
    const a = await client(server);
    const b = await client(server);
    const res = await a.send(78, 2, fetchReq('g', uuid(), 0, topicId));
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 1 }]);
    // A second member's session on the same connection ends with it too.
    expect((await a.send(78, 2, fetchReq('g2', uuid(), 0, topicId))).errorCode).toBe(0);
    expect(server.broker.shares.sessions.size).toBe(2);
    a.socket.destroy();
    // Available, and acquirable once the release's write has ended (Kafka's ongoing state transition).
    await until(() => server.broker.shares.get('g', topicId, 0)!.counts().available === 3 && server.broker.shares.get('g', topicId, 0)!.nextFetchOffset() === 0n);
    expect(server.broker.shares.sessions.size).toBe(0);
    const other = await b.send(78, 2, fetchReq('g', uuid(), 0, topicId));
    expect(partitionOf(other)?.acquiredRecords).toEqual([{ firstOffset: 0n, lastOffset: 2n, deliveryCount: 2 }]);
  });

  it('keeps acknowledged and archived records and delivery counts in __share_group_state across a restart; acquisitions are released', async () => {
    const data = tempDataDir('kmc-share-restart-');
    cleanups.push(() => data.remove());
    const first = await setup({ dataDir: data.dir, sizes: [4] });
    let c = await client(first.server);
    const m = uuid();
    await c.send(78, 2, fetchReq('g', m, 0, first.topicId));
    const acked = await c.send(78, 2, fetchReq('g', m, 1, first.topicId, { maxRecords: 0 }, [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT, RELEASE, REJECT, ACCEPT] }]));
    expect(partitionOf(acked)?.acknowledgeErrorCode).toBe(0);
    // Offset 1 acquired again (count 2), then the broker stops.
    const again = await c.send(78, 2, fetchReq('g', m, 2, first.topicId));
    expect(partitionOf(again)?.acquiredRecords).toEqual([{ firstOffset: 1n, lastOffset: 1n, deliveryCount: 2 }]);
    await first.close();

    const { server } = await start({ dataDir: data.dir });
    c = await client(server);
    const res = await c.send(78, 2, fetchReq('g', uuid(), 0, first.topicId));
    // 0 accepted, 2 rejected, 3 accepted: only 1 comes back; its written delivery count was 1.
    expect(partitionOf(res)?.acquiredRecords).toEqual([{ firstOffset: 1n, lastOffset: 1n, deliveryCount: 2 }]);
    expect(server.broker.shares.get('g', first.topicId, 0)!.spso).toBe(1n);
  });

  describe('the log start offset moving past the share-partition start offset (SharePartition.updateCacheAndOffsets)', () => {
    const ackReq = (memberId: string, epoch: number, topicId: string, batches: Ack[]) => ({ groupId: 'g', memberId, shareSessionEpoch: epoch, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: batches }] }] });
    const deleteRecords = async (c: RawClient, offset: bigint) => {
      const res = await c.send(21, 2, { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset }] }], timeoutMs: 5000 });
      expect(res.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, lowWatermark: offset });
    };
    const acquiredOf = (res: ShareFetchResponse) => partitionOf(res)?.acquiredRecords ?? [];
    const ones = Array.from({ length: 10 }, () => 1);

    it('records never fetched: the fetch from below the log start answers nothing and moves the SPSO there; then 6-9 and new records are acquired', async () => {
      const { server, topicId } = await setup({ sizes: ones });
      const c = await client(server);
      const m = uuid();
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 0, topicId, { maxRecords: 4 })))).toEqual([{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }]);
      expect((await c.send(79, 2, ackReq(m, 1, topicId, [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT] }]))).responses[0]!.partitions[0]!.errorCode).toBe(0);
      const sp = server.broker.shares.get('g', topicId, 0)!;
      expect(sp.spso).toBe(4n);
      await deleteRecords(c, 6n);
      // Kafka: the read at 4 is OFFSET_OUT_OF_RANGE; the partition answers nothing, the client fetches again.
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 2, topicId, { maxRecords: 4 })))).toEqual([]);
      expect(sp.spso).toBe(6n);
      const res = await c.send(78, 2, fetchReq('g', m, 3, topicId, { maxRecords: 4 }));
      expect(acquiredOf(res)).toEqual([{ firstOffset: 6n, lastOffset: 9n, deliveryCount: 1 }]);
      expect(valuesOf(res)).toEqual(['6=v6', '7=v7', '8=v8', '9=v9']);
      // The start written is the one before each change (the ACCEPT of 0-3 wrote 0): a new one goes with the next change.
      expect(server.broker.shareCoordinator.stateOf('g', topicId, 0)).toMatchObject({ startOffset: 0n });
      await produce(server, 't', [1, 1]);
      const next = await c.send(78, 2, fetchReq('g', m, 4, topicId, { maxRecords: 4 }, [{ firstOffset: 6n, lastOffset: 9n, acknowledgeTypes: [ACCEPT] }]));
      expect(partitionOf(next)).toMatchObject({ acknowledgeErrorCode: 0, acquiredRecords: [{ firstOffset: 10n, lastOffset: 11n, deliveryCount: 1 }] });
      expect(server.broker.shareCoordinator.stateOf('g', topicId, 0)).toMatchObject({ startOffset: 6n, stateBatches: [{ firstOffset: 6n, lastOffset: 9n, deliveryState: 2, deliveryCount: 1 }] });
    });

    it('an acquired batch the log start moves into, RELEASEd or timed out: 6-7 come back with delivery count 2, then 8-9 (and after a restart)', async () => {
      const data = tempDataDir('kmc-share-lso-');
      cleanups.push(() => data.remove());
      for (const expiry of [false, true]) {
        const time = new FakeTime();
        const { server, topicId, close } = await setup({ time, sizes: ones, ...(expiry ? {} : { dataDir: data.dir }) });
        const c = await client(server);
        const m = uuid();
        await c.send(78, 2, fetchReq('g', m, 0, topicId, { maxRecords: 4 }, []));
        expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 1, topicId, { maxRecords: 4 }, [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT] }])))).toEqual([{ firstOffset: 4n, lastOffset: 7n, deliveryCount: 1 }]);
        await deleteRecords(c, 6n);
        const sp = server.broker.shares.get('g', topicId, 0)!;
        if (expiry) {
          time.advance(30000);
          await until(() => sp.counts().available === 4 && sp.nextFetchOffset() === 4n);
        } else {
          expect((await c.send(79, 2, ackReq(m, 2, topicId, [{ firstOffset: 4n, lastOffset: 7n, acknowledgeTypes: [RELEASE] }]))).responses[0]!.partitions[0]!.errorCode).toBe(0);
        }
        let epoch = expiry ? 2 : 3;
        const moved = await c.send(78, 2, fetchReq('g', m, epoch++, topicId, { maxRecords: 4 }));
        expect(moved).toMatchObject({ errorCode: 0, responses: [] });
        expect(sp.spso).toBe(6n);
        expect(sp.counts()).toEqual({ acquired: 0, available: 2, acknowledged: 0, archived: 0 });
        expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, epoch, topicId, { maxRecords: 4 })))).toEqual([
          { firstOffset: 6n, lastOffset: 7n, deliveryCount: 2 },
          { firstOffset: 8n, lastOffset: 9n, deliveryCount: 1 },
        ]);
        if (expiry) continue;
        // The release was written with the old start (4-7 AVAILABLE, count 1): a restart acquires 6-7 with count 2 as well.
        await close();
        const again = await start({ dataDir: data.dir });
        const r = await client(again.server);
        expect(acquiredOf(await r.send(78, 2, fetchReq('g', uuid(), 0, topicId, { maxRecords: 4 })))).toEqual([
          { firstOffset: 6n, lastOffset: 7n, deliveryCount: 2 },
          { firstOffset: 8n, lastOffset: 9n, deliveryCount: 1 },
        ]);
        await again.close();
      }
    });

    it('the log start moved by retention under records never fetched: the same, from the new log start', async () => {
      const { server } = await startClosableServer(cleanups, { time: new FakeTime(), config: { 'log.segment.bytes': 1 } }, 'kmc-share-');
      const topic = await server.broker.topics.create('t', 1);
      await produce(server, 't', ones);
      await server.broker.sharePersister.initializeState('g', [{ topicId: topic.id, partition: 0, stateEpoch: 0, startOffset: 0n }]);
      const c = await client(server);
      const m = uuid();
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 0, topic.id, { maxRecords: 4 })))).toEqual([{ firstOffset: 0n, lastOffset: 3n, deliveryCount: 1 }]);
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 1, topic.id, { maxRecords: 0 }, [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT] }])))).toEqual([]);
      // One batch per segment; retention.bytes keeps three closed segments besides the active one.
      const partition = server.broker.topics.get('t')!.partition(0)!;
      const segment = partition.log.sizeInBytes / 10;
      await server.broker.configs.store.setTopicConfigs(topic.id, 't', { 'retention.bytes': String(Math.floor(segment * 3.5)) });
      await server.broker.logMaintenance.retentionPass();
      expect(partition.logStartOffset).toBe(6n);
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 2, topic.id, { maxRecords: 4 })))).toEqual([]);
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 3, topic.id, { maxRecords: 4 })))).toEqual([{ firstOffset: 6n, lastOffset: 9n, deliveryCount: 1 }]);
      await produce(server, 't', [1, 1]);
      expect(acquiredOf(await c.send(78, 2, fetchReq('g', m, 4, topic.id, { maxRecords: 4 })))).toEqual([{ firstOffset: 10n, lastOffset: 11n, deliveryCount: 1 }]);
    });

    it('records another member holds below the new start stay its own until they time out, then are archived; its acknowledgement of them changes nothing', async () => {
      const time = new FakeTime();
      const { server, topicId } = await setup({ time, sizes: ones });
      const a = await client(server);
      const b = await client(server);
      const ma = uuid();
      const mb = uuid();
      expect(acquiredOf(await a.send(78, 2, fetchReq('g', ma, 0, topicId, { maxRecords: 2 })))).toEqual([{ firstOffset: 0n, lastOffset: 1n, deliveryCount: 1 }]);
      expect(acquiredOf(await b.send(78, 2, fetchReq('g', mb, 0, topicId, { maxRecords: 4 })))).toEqual([{ firstOffset: 2n, lastOffset: 5n, deliveryCount: 1 }]);
      expect((await b.send(79, 2, ackReq(mb, 1, topicId, [{ firstOffset: 2n, lastOffset: 5n, acknowledgeTypes: [RELEASE] }]))).responses[0]!.partitions[0]!.errorCode).toBe(0);
      await deleteRecords(b, 4n);
      const sp = server.broker.shares.get('g', topicId, 0)!;
      // From 2 (below the log start): 2-3 are archived, 0-1 stay A's, the start moves to 4.
      expect(acquiredOf(await b.send(78, 2, fetchReq('g', mb, 2, topicId, { maxRecords: 4 })))).toEqual([]);
      expect(sp.spso).toBe(4n);
      expect(sp.counts()).toEqual({ acquired: 2, available: 2, acknowledged: 0, archived: 0 });
      expect(acquiredOf(await b.send(78, 2, fetchReq('g', mb, 3, topicId, { maxRecords: 4 })))).toEqual([
        { firstOffset: 4n, lastOffset: 5n, deliveryCount: 2 },
        { firstOffset: 6n, lastOffset: 7n, deliveryCount: 1 },
      ]);
      // A's acknowledgement of 0-1 is below the start: answered NONE, nothing changes (Kafka skips those offsets).
      expect((await a.send(79, 2, ackReq(ma, 1, topicId, [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }]))).responses[0]!.partitions[0]!.errorCode).toBe(0);
      expect(sp.counts()).toEqual({ acquired: 6, available: 0, acknowledged: 0, archived: 0 });
      // Both locks run out: 0-1 are archived and forgotten, 4-7 are AVAILABLE again; the start stays at 4.
      time.advance(30000);
      await until(() => sp.counts().acquired === 0 && sp.counts().archived === 0);
      expect(sp.counts()).toEqual({ acquired: 0, available: 4, acknowledged: 0, archived: 0 });
      expect(sp.spso).toBe(4n);
      // The timeouts' state writes (the change stands before they end, as Kafka's) carry the start offset.
      await server.broker.shareCoordinator.settled();
      expect(server.broker.shareCoordinator.stateOf('g', topicId, 0)).toMatchObject({
        startOffset: 4n,
        stateBatches: [
          { firstOffset: 4n, lastOffset: 5n, deliveryState: 0, deliveryCount: 2 },
          { firstOffset: 6n, lastOffset: 7n, deliveryState: 0, deliveryCount: 1 },
        ],
      });
    });
  });
});

