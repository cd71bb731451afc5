/**
 * The topic APIs (Produce, Fetch, ListOffsets, Metadata, CreateTopics, DeleteTopics,
 * InitProducerId) driven through their handlers against an in-memory Broker.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Broker } from '../../src/broker.js';
import { BrokerConfig } from '../../src/config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { decodeRecords, encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';
import { NO_RESPONSE, type ApiDefinition, type RequestContext } from '../../src/apis/types.js';
import { api as produce } from '../../src/apis/00-produce.js';
import { api as fetchApi } from '../../src/apis/01-fetch.js';
import { api as listOffsets } from '../../src/apis/02-list-offsets.js';
import { api as metadata } from '../../src/apis/03-metadata.js';
import { api as createTopics } from '../../src/apis/19-create-topics.js';
import { api as deleteTopics } from '../../src/apis/20-delete-topics.js';
import { api as initProducerId } from '../../src/apis/22-init-producer-id.js';
import { api as offsetForLeaderEpoch } from '../../src/apis/23-offset-for-leader-epoch.js';
import { defaultFetchRequest, defaultFetchPartition } from '../../src/protocol/messages/FetchRequest.js';
import { ManualTime, captureLog } from '../storage/helpers.js';

const brokers: Broker[] = [];

function newBroker(overrides: Record<string, string> = {}, time = new ManualTime()): Broker {
  const broker = Broker.open({ config: new BrokerConfig({ 'offsets.topic.num.partitions': '3', ...overrides }), log: captureLog().log, time, dataDir: null, clusterId: 'test-cluster' });
  brokers.push(broker);
  return broker;
}

function call<Req, Res>(api: ApiDefinition<Req, Res>, broker: Broker, version: number, req: Req): Promise<Res | typeof NO_RESPONSE> {
  const ctx: RequestContext = { apiKey: api.apiKey, apiVersion: version, correlationId: 1, clientId: 't', clientHost: '/127.0.0.1', connectionId: 'c1', broker, log: broker.log };
  return Promise.resolve(api.handle(req, ctx));
}

async function produceTo(broker: Broker, topic: string, partition: number, batch: Buffer, version = 9, acks = -1) {
  return call(produce, broker, version, { transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: partition, records: batch }] }] });
}

const records = (...values: string[]): Buffer =>
  encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: values.map((v) => ({ key: null, value: Buffer.from(v) })) });

afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.close()));
});

describe('Produce and Fetch', () => {
  it('appends at consecutive offsets and fetches the batches back', async () => {
    const broker = newBroker();
    broker.topics.create('t', 1);
    const r1 = (await produceTo(broker, 't', 0, records('a', 'b'))) as any;
    const r2 = (await produceTo(broker, 't', 0, records('c'))) as any;
    expect(r1.responses[0].partitionResponses[0]).toMatchObject({ index: 0, errorCode: 0, baseOffset: 0n, logStartOffset: 0n, logAppendTimeMs: -1n });
    expect(r2.responses[0].partitionResponses[0].baseOffset).toBe(2n);

    const req = defaultFetchRequest();
    req.maxWaitMs = 0;
    req.topics = [{ topic: 't', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 1n, partitionMaxBytes: 1 << 20 }] }];
    const f = (await call(fetchApi, broker, 11, req)) as any;
    const p = f.responses[0].partitions[0];
    expect(p).toMatchObject({ errorCode: 0, highWatermark: 3n, lastStableOffset: 3n, logStartOffset: 0n, preferredReadReplica: -1, abortedTransactions: null });
    const first = readBatchHeader(p.records);
    expect(first.baseOffset).toBe(0n);
    expect(first.partitionLeaderEpoch).toBe(0);
    expect(decodeRecords(p.records).map((r) => r.value!.toString())).toEqual(['a', 'b']);
  });

  it('a partition named twice: Produce appends its last batch once and Fetch reads its last offset once, a topic named twice is one topic; ListOffsets refuses it (as a 4.3.1 broker, adversarial trial 24)', async () => {
    const broker = newBroker();
    broker.topics.create('dup', 2);
    const produced = (await call(produce, broker, 9, {
      transactionalId: null,
      acks: -1,
      timeoutMs: 1000,
      topicData: [
        { name: 'dup', topicId: ZERO_UUID, partitionData: [{ index: 0, records: records('a') }, { index: 0, records: records('b', 'c') }] },
        { name: 'dup', topicId: ZERO_UUID, partitionData: [{ index: 1, records: records('d') }] },
      ],
    })) as any;
    expect(produced.responses.map((t: any) => [t.name, t.partitionResponses.map((p: any) => [p.index, p.errorCode, p.baseOffset])])).toEqual([['dup', [[0, 0, 0n], [1, 0, 0n]]]]);
    expect(broker.topics.get('dup')!.partition(0)!.logEndOffset).toBe(2n);
    const req = defaultFetchRequest();
    req.maxWaitMs = 0;
    req.topics = [{ topic: 'dup', topicId: ZERO_UUID, partitions: [0n, 1n].map((fetchOffset) => ({ ...defaultFetchPartition(), partition: 0, fetchOffset, partitionMaxBytes: 1 << 20 })) }];
    const fetched = (await call(fetchApi, broker, 12, req)) as any;
    expect(fetched.responses[0].partitions).toHaveLength(1);
    expect(decodeRecords(fetched.responses[0].partitions[0].records).map((r) => r.value!.toString())).toEqual(['b', 'c']);
    const listed = (await call(listOffsets, broker, 7, {
      replicaId: -1,
      isolationLevel: 0,
      timeoutMs: 0,
      topics: [{ name: 'dup', partitions: [0, 1, 0].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })) }],
    })) as any;
    expect(listed.topics[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.offset])).toEqual([[0, ErrorCode.INVALID_REQUEST, -1n], [1, 0, 1n]]);
  });

  it('answers acks=0 with no response (closes the connection when a partition failed) and refuses bad records and unknown topics', async () => {
    const broker = newBroker();
    broker.topics.create('t', 2);
    expect(await produceTo(broker, 't', 0, records('x'), 9, 0)).toBe(NO_RESPONSE);
    expect(broker.topics.get('t')!.partitions[0]!.logEndOffset).toBe(1n);
    // A failed partition: the connection is closed instead (KafkaApis.handleProduceRequest).
    await expect(produceTo(broker, 'nope', 0, records('x'), 9, 0)).rejects.toThrow('error during a Produce with acks=0: nope-0 -> UNKNOWN_TOPIC_OR_PARTITION');
    const bad = records('y');
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    const codes = async (topic: string, partition: number, batch: Buffer, acks = -1) =>
      ((await produceTo(broker, topic, partition, batch, 9, acks)) as any).responses[0].partitionResponses[0].errorCode;
    expect(await codes('t', 0, bad)).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(await codes('nope', 0, records('z'))).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(await codes('t', 5, records('z'))).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    expect(await codes('t', 0, records('z'), 2)).toBe(ErrorCode.INVALID_REQUIRED_ACKS);
    // Before a group created it, `__consumer_offsets` is a topic that does not exist.
    expect(await codes('__consumer_offsets', 0, records('z'))).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    broker.ensureOffsetsTopic();
    // ReplicaManager.appendToLocalLog: "Cannot append to internal topic", without a message on the wire.
    const internal = ((await produceTo(broker, '__consumer_offsets', 0, records('z'))) as any).responses[0].partitionResponses[0];
    expect(internal).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: null, baseOffset: -1n });
    expect(broker.groupLog.partitionLogs()[0]!.logEndOffset).toBe(0n);
  });

  it('addresses topics by id from Produce v13 and Fetch v13', async () => {
    const broker = newBroker();
    const topic = broker.topics.create('byid', 1);
    const res = (await call(produce, broker, 13, { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [{ name: '', topicId: topic.id, partitionData: [{ index: 0, records: records('q') }] }] })) as any;
    expect(res.responses[0]).toMatchObject({ topicId: topic.id, partitionResponses: [{ errorCode: 0, baseOffset: 0n }] });
    const req = defaultFetchRequest();
    req.topics = [
      { topic: '', topicId: topic.id, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1000 }] },
      { topic: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ ...defaultFetchPartition(), partition: 0 }] },
    ];
    const f = (await call(fetchApi, broker, 13, req)) as any;
    expect(f.responses[0].partitions[0].records.length).toBeGreaterThan(0);
    expect(f.responses[1].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_ID);
  });

  it('answers a duplicate idempotent batch with its original offset, and a gap with 45', async () => {
    const broker = newBroker();
    broker.topics.create('idem', 1);
    const init = (await call(initProducerId, broker, 4, { transactionalId: null, transactionTimeoutMs: 0, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false } as any)) as any;
    expect(init).toMatchObject({ errorCode: 0, producerId: 0n, producerEpoch: 0 });
    const idem = (seq: number) => encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, producerId: 0n, producerEpoch: 0, baseSequence: seq, records: [{ key: null, value: Buffer.from('v') }] });
    const offsetOf = async (batch: Buffer) => ((await produceTo(broker, 'idem', 0, batch)) as any).responses[0].partitionResponses[0];
    expect((await offsetOf(idem(0))).baseOffset).toBe(0n);
    expect((await offsetOf(idem(1))).baseOffset).toBe(1n);
    expect(await offsetOf(idem(0))).toMatchObject({ errorCode: 0, baseOffset: 0n });
    expect((await offsetOf(idem(5))).errorCode).toBe(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    expect(broker.topics.get('idem')!.partitions[0]!.logEndOffset).toBe(2n);
  });

  it('long-polls until an append arrives, or answers empty at max_wait_ms', async () => {
    const time = new ManualTime();
    const broker = newBroker({}, time);
    broker.topics.create('lp', 1);
    const req = defaultFetchRequest();
    req.maxWaitMs = 5000;
    req.minBytes = 1;
    req.topics = [{ topic: 'lp', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
    const pending = call(fetchApi, broker, 11, req);
    await new Promise((r) => setImmediate(r));
    await produceTo(broker, 'lp', 0, records('late'));
    const f = (await pending) as any;
    expect(decodeRecords(f.responses[0].partitions[0].records)[0]!.value!.toString()).toBe('late');

    req.topics[0]!.partitions[0]!.fetchOffset = 1n;
    const empty = call(fetchApi, broker, 11, req);
    await new Promise((r) => setImmediate(r));
    time.advance(5000);
    const e = (await empty) as any;
    expect(e.responses[0].partitions[0]).toMatchObject({ errorCode: 0, highWatermark: 1n });
    expect(e.responses[0].partitions[0].records.length).toBe(0);
  });

  it('answers OFFSET_OUT_OF_RANGE beyond the log end', async () => {
    const broker = newBroker();
    broker.topics.create('r', 1);
    const req = defaultFetchRequest();
    req.topics = [{ topic: 'r', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 7n, partitionMaxBytes: 100 }] }];
    const f = (await call(fetchApi, broker, 11, req)) as any;
    expect(f.responses[0].partitions[0]).toMatchObject({ errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, highWatermark: -1n, logStartOffset: -1n });
  });
});

describe('ListOffsets', () => {
  it('answers earliest, latest, max timestamp and by timestamp', async () => {
    const broker = newBroker();
    broker.topics.create('lo', 1);
    const at = (...ts: bigint[]) => encodeRecordBatch({ baseOffset: 0n, timestamp: ts[0]!, records: ts.map((timestamp) => ({ key: null, value: null, timestamp })) });
    await produceTo(broker, 'lo', 0, at(100n, 300n));
    await produceTo(broker, 'lo', 0, at(200n));
    const ask = async (timestamp: bigint) =>
      ((await call(listOffsets, broker, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: 'lo', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp }] }] })) as any).topics[0].partitions[0];
    expect(await ask(-2n)).toMatchObject({ errorCode: 0, offset: 0n, timestamp: -1n, leaderEpoch: 0 });
    expect(await ask(-1n)).toMatchObject({ offset: 3n, timestamp: -1n });
    expect(await ask(-3n)).toMatchObject({ offset: 1n, timestamp: 300n });
    expect(await ask(150n)).toMatchObject({ offset: 1n, timestamp: 300n });
    expect(await ask(301n)).toMatchObject({ errorCode: 0, offset: -1n, timestamp: -1n, leaderEpoch: -1 });

    // Below a log start DeleteRecords moved, the max timestamp's epoch is still its batch's (a
    // 4.3.1 broker answers 0 here too; the leader epoch cache no longer knows the offset).
    expect(broker.topics.get('lo')!.partition(0)!.deleteRecordsBefore(3n)).toMatchObject({ errorCode: 0, lowWatermark: 3n });
    expect(await ask(-3n)).toMatchObject({ errorCode: 0, offset: 1n, timestamp: 300n, leaderEpoch: 0 });
    expect(await ask(-2n)).toMatchObject({ offset: 3n, leaderEpoch: 0 });
  });

  it('answers UNSUPPORTED_VERSION for a special timestamp below the version that introduced it and for any other negative one, before looking up the topic (ReplicaManager.isListOffsetsTimestampUnsupported; differential trial against 4.3.1)', async () => {
    const broker = newBroker();
    broker.topics.create('lo', 9);
    // Partition i is asked for the i-th timestamp.
    const codes = async (version: number, name = 'lo') => {
      const partitions = [-1n, -2n, -3n, -4n, -5n, -6n, -7n, -8n, -100n].map((timestamp, partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp }));
      const res = (await call(listOffsets, broker, version, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name, partitions }] })) as any;
      return res.topics[0].partitions.map((p: any) => p.errorCode);
    };
    const U = ErrorCode.UNSUPPORTED_VERSION;
    expect(await codes(1)).toEqual([0, 0, U, U, U, U, U, U, U]);
    expect(await codes(6)).toEqual([0, 0, U, U, U, U, U, U, U]);
    expect(await codes(7)).toEqual([0, 0, 0, U, U, U, U, U, U]);
    expect(await codes(8)).toEqual([0, 0, 0, 0, U, U, U, U, U]);
    expect(await codes(9)).toEqual([0, 0, 0, 0, 0, U, U, U, U]);
    expect(await codes(10)).toEqual([0, 0, 0, 0, 0, U, U, U, U]);
    expect(await codes(11)).toEqual([0, 0, 0, 0, 0, 0, U, U, U]);
    const T = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    expect(await codes(11, 'nope')).toEqual([T, T, T, T, T, T, U, U, U]);
  });

  it('takes only -1 as no current leader epoch (ListOffsets, OffsetForLeaderEpoch; Fetch any negative), as a 4.3.1 broker', async () => {
    const broker = newBroker();
    broker.topics.create('le', 1);
    await produceTo(broker, 'le', 0, encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: null }] }));
    const list = async (currentLeaderEpoch: number) =>
      ((await call(listOffsets, broker, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: 'le', partitions: [{ partitionIndex: 0, currentLeaderEpoch, timestamp: -1n }] }] })) as any).topics[0].partitions[0];
    expect(await list(-1)).toMatchObject({ errorCode: 0, offset: 1n });
    expect(await list(-5)).toMatchObject({ errorCode: ErrorCode.FENCED_LEADER_EPOCH });
    const epochs = async (currentLeaderEpoch: number) =>
      ((await call(offsetForLeaderEpoch, broker, 4, { replicaId: -2, topics: [{ topic: 'le', partitions: [{ partition: 0, currentLeaderEpoch, leaderEpoch: 0 }] }] })) as any).topics[0].partitions[0];
    expect(await epochs(-1)).toMatchObject({ errorCode: 0, endOffset: 1n });
    expect(await epochs(-2)).toMatchObject({ errorCode: ErrorCode.FENCED_LEADER_EPOCH });
    const fetched = (await call(fetchApi, broker, 12, {
      ...defaultFetchRequest(),
      maxWaitMs: 0,
      topics: [{ topic: 'le', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, currentLeaderEpoch: -5, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
    })) as any;
    expect(fetched.responses[0].partitions[0].errorCode).toBe(0);
  });
});

describe('Metadata', () => {
  it('describes this node, all topics, auto-creates, and answers topic ids from v10', async () => {
    const broker = newBroker({ 'num.partitions': '2', 'node.id': '3', 'offsets.topic.num.partitions': '1' });
    const t = broker.topics.create('m', 1);
    broker.ensureOffsetsTopic(); // as the first group coordinator lookup does
    const offsetsTopic = broker.topics.get('__consumer_offsets')!;
    const all = (await call(metadata, broker, 12, { topics: null, allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })) as any;
    expect(all.brokers).toEqual([{ nodeId: 3, host: broker.advertised.host, port: broker.advertised.port, rack: null }]);
    expect(all).toMatchObject({ clusterId: 'test-cluster', controllerId: 3 });
    const onePartition = [{ errorCode: 0, partitionIndex: 0, leaderId: 3, leaderEpoch: 0, replicaNodes: [3], isrNodes: [3], offlineReplicas: [] }];
    expect(offsetsTopic.id).not.toBe(ZERO_UUID);
    expect(all.topics).toEqual([
      // Listed as Kafka lists it to "all topics": internal, with its topic id.
      { errorCode: 0, name: '__consumer_offsets', topicId: offsetsTopic.id, isInternal: true, topicAuthorizedOperations: -2147483648, partitions: onePartition },
      { errorCode: 0, name: 'm', topicId: t.id, isInternal: false, topicAuthorizedOperations: -2147483648, partitions: onePartition },
    ]);
    const auto = (await call(metadata, broker, 12, { topics: [{ topicId: ZERO_UUID, name: 'fresh' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })) as any;
    expect(auto.topics[0]).toMatchObject({ errorCode: 0, name: 'fresh' });
    expect(auto.topics[0].partitions.length).toBe(2);
    const none = (await call(metadata, broker, 12, { topics: [{ topicId: ZERO_UUID, name: 'other' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })) as any;
    expect(none.topics[0].errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    const byId = (await call(metadata, broker, 12, { topics: [{ topicId: t.id, name: null }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', name: null }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })) as any;
    expect(byId.topics.map((x: any) => [x.name, x.errorCode])).toEqual([['m', 0], [null, ErrorCode.UNKNOWN_TOPIC_ID]]);
    const v0 = (await call(metadata, broker, 0, { topics: [], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false })) as any;
    expect(v0.topics.map((x: any) => x.name)).toEqual(['__consumer_offsets', 'fresh', 'm']);
  });
});

describe('CreateTopics and DeleteTopics', () => {
  const creatable = (name: string, numPartitions: number, replicationFactor = -1) => ({ name, numPartitions, replicationFactor, assignments: [], configs: [] });

  it('creates, validates and refuses as Kafka does', async () => {
    const broker = newBroker({ 'num.partitions': '5' });
    const res = (await call(createTopics, broker, 7, {
      timeoutMs: 1000,
      validateOnly: false,
      topics: [creatable('a', 2), creatable('b', -1, 1), creatable('a', 1), creatable('c', 0), creatable('d', 1, 3), creatable('bad/name', 1)],
    })) as any;
    const byName = Object.fromEntries(res.topics.map((t: any) => [t.name, t]));
    expect(res.topics.length).toBe(5);
    expect(byName.a.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(byName.b).toMatchObject({ errorCode: 0, numPartitions: 5, replicationFactor: 1, errorMessage: null });
    expect(byName.b.topicId).toBe(broker.topics.get('b')!.id);
    expect(byName.c.errorCode).toBe(ErrorCode.INVALID_PARTITIONS);
    expect(byName.d.errorCode).toBe(ErrorCode.INVALID_REPLICATION_FACTOR);
    expect(byName['bad/name'].errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    const again = (await call(createTopics, broker, 3, { timeoutMs: 1000, validateOnly: false, topics: [creatable('b', 1)] })) as any;
    expect(again.topics[0].errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
    const dry = (await call(createTopics, broker, 7, { timeoutMs: 1000, validateOnly: true, topics: [creatable('dry', 3)] })) as any;
    expect(dry.topics[0]).toMatchObject({ errorCode: 0, numPartitions: 3 });
    // The id the topic would have had, as a 4.3.1 controller draws it before it checks: random, not zero.
    expect(dry.topics[0].topicId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(dry.topics[0].topicId).not.toBe(ZERO_UUID);
    expect(broker.topics.get('dry')).toBeUndefined();
  });

  it('deletes by name and (v6) by id', async () => {
    const broker = newBroker();
    broker.ensureOffsetsTopic(); // as the first group coordinator lookup does
    broker.topics.create('x', 1);
    const y = broker.topics.create('y', 1);
    const byName = (await call(deleteTopics, broker, 4, { topics: [], topicNames: ['x', 'missing'], timeoutMs: 1000 })) as any;
    expect(byName.responses.map((r: any) => [r.name, r.errorCode])).toEqual([['x', 0], ['missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
    const byId = (await call(deleteTopics, broker, 6, { topics: [{ name: null, topicId: y.id }, { name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }], topicNames: [], timeoutMs: 1000 })) as any;
    expect(byId.responses.map((r: any) => [r.name, r.errorCode])).toEqual([['y', 0], [null, ErrorCode.UNKNOWN_TOPIC_ID]]);
    expect(broker.topics.list().map((t) => t.name)).toEqual(['__consumer_offsets']);
    // The internal topic is refused by name and by id (Kafka 4.3.1's controller would delete it; see DIFFERENCES.md).
    const offsetsId = broker.topics.get('__consumer_offsets')!.id;
    const internal = (await call(deleteTopics, broker, 6, { topics: [{ name: '__consumer_offsets', topicId: ZERO_UUID }, { name: null, topicId: offsetsId }], topicNames: [], timeoutMs: 1000 })) as any;
    expect(internal.responses.map((r: any) => [r.name, r.errorCode, r.errorMessage])).toEqual([
      ['__consumer_offsets', ErrorCode.INVALID_REQUEST, 'Deleting the internal topic __consumer_offsets is not supported.'],
      ['__consumer_offsets', ErrorCode.INVALID_REQUEST, 'Deleting the internal topic __consumer_offsets is not supported.'],
    ]);
    expect(broker.topics.get('__consumer_offsets')!.partitionCount).toBe(3);
  });
});
