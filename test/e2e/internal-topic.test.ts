/**
 * `__consumer_offsets` as clients see it (issue 15): created at the first group coordinator lookup
 * or group write (as Kafka creates it at the first FindCoordinator), then listed in Metadata for all topics with
 * `is_internal` true and a topic id kept in its partitions' `partition.metadata` across restarts,
 * readable (ListOffsets, Fetch), not writable (INVALID_TOPIC_EXCEPTION); and DescribeConfigs
 * answered by every simulated broker for its own id, with `broker.id` and `node.id`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import pino from 'pino';
import { join } from 'node:path';
import { Kafka, logLevel, ConfigResourceTypes } from 'kafkajs';
import { startClosableServer, startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { TxnState } from '../../src/transactions/transaction-state.js';
import { canMountTmpfs, mountTmpfs } from '../support/tmpfs.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { decodeRecords } from '../../src/records/record-batch.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const allTopics = { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };

describe('__consumer_offsets', () => {
  it('is listed as internal with a topic id that survives a restart; kafkajs lists it; committed records can be fetched', async () => {
    const first = await startClosableServer(cleanups, { config: { 'offsets.topic.num.partitions': 2 } });
    const kafka = kafkaClient(first.server.bootstrap);
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'it-data', numPartitions: 1 }] });
    // Not there before a group needs it, as on a fresh Kafka broker.
    expect((await admin.listTopics()).sort()).toEqual(['it-data']);
    expect(existsSync(join(first.dataDir, '__consumer_offsets-0'))).toBe(false);

    const raw = await RawClient.connect(first.server.port);
    const lookup = await raw.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['it-group'] });
    expect(lookup.coordinators.map((c) => [c.key, c.errorCode, c.nodeId])).toEqual([['it-group', 0, 1]]);
    expect((await admin.listTopics()).sort()).toEqual(['__consumer_offsets', 'it-data']);
    await admin.disconnect();
    // A standalone commit (generation -1): one OffsetCommit record in the group's partition.
    const commit = await raw.send(8, 8, { groupId: 'it-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'it-data', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: null }] }] });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
    const md = await raw.send(3, 12, allTopics);
    const internal = md.topics.find((t) => t.name === '__consumer_offsets')!;
    expect(internal).toMatchObject({ errorCode: 0, isInternal: true });
    expect(internal.partitions.map((p) => [p.partitionIndex, p.leaderId, p.errorCode])).toEqual([[0, 1, 0], [1, 1, 0]]);
    expect(md.topics.find((t) => t.name === 'it-data')!.isInternal).toBe(false);
    // Kafka's PartitionMetadataFile in every partition directory.
    for (const p of [0, 1]) {
      expect(readFileSync(join(first.dataDir, `__consumer_offsets-${p}`, 'partition.metadata'), 'utf8')).toBe(`version: 0\ntopic_id: ${internal.topicId}\n`);
    }

    // The group's commit landed in partition abs("it-group".hashCode()) % 2: read it back as a consumer would.
    const partition = first.server.broker.cluster.offsetsPartitionOf('it-group');
    const end = await raw.send(2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 0, topics: [{ name: '__consumer_offsets', partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n }] }] });
    expect(end.topics[0]!.partitions[0]).toMatchObject({ errorCode: 0, offset: 1n });
    const fetch = defaultFetchRequest();
    fetch.maxWaitMs = 0;
    fetch.topics = [{ topic: '__consumer_offsets', topicId: internal.topicId, partitions: [{ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
    const fetched = await raw.send(1, 12, fetch);
    const records = decodeRecords(fetched.responses[0]!.partitions[0]!.records!);
    expect(records).toHaveLength(1);
    expect(records[0]!.key!.readInt16BE(0)).toBe(1); // an OffsetCommitKey

    // Producing to it is refused as ReplicaManager refuses appends to internal topics.
    const produced = await raw.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: '__consumer_offsets', topicId: internal.topicId, partitionData: [{ index: partition, records: fetched.responses[0]!.partitions[0]!.records }] }] });
    expect(produced.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, baseOffset: -1n });
    raw.close();
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir, config: { 'offsets.topic.num.partitions': 2 } });
    const again = await RawClient.connect(second.server.port);
    const md2 = await again.send(3, 12, allTopics);
    expect(md2.topics.find((t) => t.name === '__consumer_offsets')!.topicId).toBe(internal.topicId);
    again.close();
  });
});

describe('internal topics not created yet', () => {
  it('are answered UNKNOWN_TOPIC_OR_PARTITION with is_internal true, as Kafka answers them (adversarial trial, session 31)', async () => {
    const { server } = await startClosableServer(cleanups, {});
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const internalTopics = ['__consumer_offsets', '__share_group_state', '__transaction_state'];
    for (const allowAutoTopicCreation of [true, false]) {
      const md = await raw.send(3, 12, { ...allTopics, topics: internalTopics.map((name) => ({ topicId: ZERO_UUID, name })), allowAutoTopicCreation });
      expect(md.topics.map((t) => [t.name, t.errorCode, t.isInternal, t.partitions.length])).toEqual(
        internalTopics.map((name) => [name, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true, 0]),
      );
    }
    expect((await raw.send(3, 12, allTopics)).topics).toEqual([]);
  });

  it('__consumer_offsets: a group write without a lookup creates it too; a transaction adding offsets to a group no one looked up commits them', async () => {
    const { server } = await startClosableServer(cleanups, { config: { 'offsets.topic.num.partitions': 3 } });
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 7, { topics: [{ name: 'w', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const listed = async () => (await raw.send(3, 12, allTopics)).topics.map((t) => [t.name, t.partitions.length]).sort();
    expect(await listed()).toEqual([['w', 1]]);

    // AddOffsetsToTxn adds the group's partition before anyone looked the group up; the EndTxn's marker creates the topic.
    const txnId = 'it-txn';
    expect((await raw.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [txnId] })).coordinators[0]!.errorCode).toBe(0);
    const init = await raw.send(22, 5, { transactionalId: txnId, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    expect(init.errorCode).toBe(0);
    const added = await raw.send(25, 3, { transactionalId: txnId, producerId: init.producerId, producerEpoch: init.producerEpoch, groupId: 'never-looked-up' });
    expect(added.errorCode).toBe(0);
    expect(await listed()).toEqual([['__transaction_state', 50], ['w', 1]]);
    const ended = await raw.send(26, 4, { transactionalId: txnId, producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true });
    expect(ended.errorCode).toBe(0);
    await waitFor(() => server.broker.transactions.get(txnId)?.state === TxnState.COMPLETE_COMMIT, 10000, 'transaction complete');
    expect(await listed()).toEqual([['__consumer_offsets', 3], ['__transaction_state', 50], ['w', 1]]);

    // A standalone commit (no lookup) on a server where no group was used yet creates it as well.
    const other = await startClosableServer(cleanups, { config: { 'offsets.topic.num.partitions': 2 } });
    const raw2 = await RawClient.connect(other.server.port);
    cleanups.push(() => raw2.close());
    await raw2.send(19, 7, { topics: [{ name: 'w', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const commit = await raw2.send(8, 8, { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'w', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: null }] }] });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await raw2.send(3, 12, allTopics)).topics.map((t) => [t.name, t.isInternal, t.partitions.length]).sort()).toEqual([['__consumer_offsets', true, 2], ['w', false, 1]]);
  });
});

describe('__consumer_offsets in a data directory', () => {
  it('is opened at start when any of its partition directories is there: the commits of a group in another partition than a missing 0 are loaded', async () => {
    const config = { 'offsets.topic.num.partitions': 3 };
    const first = await startClosableServer(cleanups, { config });
    const groupId = ['g0', 'g1', 'g2', 'g3', 'g4'].find((g) => first.server.broker.cluster.offsetsPartitionOf(g) !== 0)!;
    const raw = await RawClient.connect(first.server.port);
    await raw.send(19, 7, { topics: [{ name: 'kept', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const commit = await raw.send(8, 8, { groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'kept', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: null }] }] });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
    raw.close();
    await first.close();
    rmSync(join(first.dataDir, '__consumer_offsets-0'), { recursive: true });

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir, config });
    const again = await RawClient.connect(second.server.port);
    const fetched = await again.send(9, 8, { groupId: '', topics: null, groups: [{ groupId, memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
    expect(fetched.groups[0]!.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])])).toEqual([['kept', [[0, 42n]]]]);
    // Listed from the start, the missing partition made again.
    expect((await again.send(3, 12, allTopics)).topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual([['__consumer_offsets', 3], ['kept', 1]]);
    expect(existsSync(join(first.dataDir, '__consumer_offsets-0'))).toBe(true);
    again.close();
  });
});

describe('__consumer_offsets across a change of offsets.topic.num.partitions', () => {
  it('keeps the partitions it has (as Kafka takes the count from the existing topic): the commits stay where they are (adversarial trial, session 33: they went back)', async () => {
    const commitAndRead = async (port: number, offset: bigint | null) => {
      const raw = await RawClient.connect(port);
      try {
        if (offset !== null) {
          const commit = await raw.send(8, 8, { groupId: 'moved', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'kept', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: null }] }] });
          expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
        }
        const fetched = await raw.send(9, 8, { groupId: '', topics: null, groups: [{ groupId: 'moved', memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
        const md = await raw.send(3, 12, allTopics);
        return { offsets: fetched.groups[0]!.topics.flatMap((t) => t.partitions.map((p) => p.committedOffset)), partitions: md.topics.find((t) => t.name === '__consumer_offsets')?.partitions.length };
      } finally {
        raw.close();
      }
    };
    const first = await startClosableServer(cleanups, { config: { 'offsets.topic.num.partitions': 10 } });
    const raw = await RawClient.connect(first.server.port);
    await raw.send(19, 7, { topics: [{ name: 'kept', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    raw.close();
    expect(await commitAndRead(first.server.port, 11n)).toEqual({ offsets: [11n], partitions: 10 });
    await first.close();

    const lines: string[] = [];
    const second = await startClosableServer(cleanups, { dataDir: first.dataDir, config: { 'offsets.topic.num.partitions': 50 }, logger: pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) }) });
    expect(await commitAndRead(second.server.port, 22n)).toEqual({ offsets: [22n], partitions: 10 });
    expect(lines.map((l) => JSON.parse(l).msg)).toContain('__consumer_offsets keeps the 10 partitions it has in the data directory: offsets.topic.num.partitions (50) only sets the count of a new one, as in Kafka');
    expect(readdirSync(first.dataDir).filter((d) => d.startsWith('__consumer_offsets-'))).toHaveLength(10);
    await second.close();

    const third = await startClosableServer(cleanups, { dataDir: first.dataDir, config: { 'offsets.topic.num.partitions': 10 } });
    expect(await commitAndRead(third.server.port, null)).toEqual({ offsets: [22n], partitions: 10 });
  });
});

describe.skipIf(!canMountTmpfs)('__consumer_offsets created on a full disk', () => {
  it('the lookup answers COORDINATOR_NOT_AVAILABLE; once there is room the next lookup creates and lists it (adversarial trial, session 33: it stayed unlisted until a restart)', async () => {
    const fs = mountTmpfs(1 << 20)!;
    cleanups.push(() => fs.unmount());
    const { server } = await startClosableServer(cleanups, { dataDir: join(fs.dir, 'data') });
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const lookup = async () => (await raw.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['full-disk-group'] })).coordinators[0]!.errorCode;
    const listed = async () => (await raw.send(3, 12, allTopics)).topics.map((t) => [t.name, t.partitions.length]);
    fs.fill();
    expect(await lookup()).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(await listed()).toEqual([]);
    fs.free();
    expect(await lookup()).toBe(ErrorCode.NONE);
    expect(await listed()).toEqual([['__consumer_offsets', 50]]);
    const id = server.broker.topics.get('__consumer_offsets')!.id;
    for (const p of [0, 49]) expect(readFileSync(join(fs.dir, 'data', `__consumer_offsets-${p}`, 'partition.metadata'), 'utf8')).toBe(`version: 0\ntopic_id: ${id}\n`);
  });
});

describe('DescribeConfigs on a simulated cluster', () => {
  it('every broker answers for its own id, with broker.id and node.id; another id is refused as Kafka refuses it', async () => {
    const server = await startTestServer({ brokers: 3 });
    cleanups.push(() => server.stop());
    const kafka = new Kafka({ clientId: 'dc', brokers: [server.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    cleanups.push(async () => { await admin.disconnect(); });
    await admin.connect();
    // kafkajs sends each BROKER resource to that broker.
    for (const id of [1, 2, 3]) {
      const res = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.BROKER, name: String(id), configNames: ['broker.id', 'node.id'] }] });
      const entries = res.resources[0]!.configEntries.map((e) => [e.configName, e.configValue, e.configSource, e.readOnly]).sort();
      expect(res.resources[0]!.errorCode).toBe(0);
      expect(entries).toEqual([
        ['broker.id', String(id), 4, true],
        ['node.id', String(id), 4, true],
      ]);
      const brokerId = res.resources[0]!.configEntries.find((e) => e.configName === 'broker.id')!;
      expect(brokerId.configSynonyms).toEqual([
        { configName: 'broker.id', configValue: String(id), configSource: 4 },
        { configName: 'broker.id', configValue: '-1', configSource: 5 },
      ]);
    }
    const raw = await RawClient.connect(server.ports.get(2)!);
    const wrong = await raw.send(32, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    expect(wrong.results[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Unexpected broker id, expected 2 or empty string, but received 1' });
    raw.close();
  });
});
