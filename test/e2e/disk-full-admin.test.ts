/**
 * Admin writes on a full disk are all or nothing (the server process on a small real tmpfs):
 * IncrementalAlterConfigs and AlterConfigs answer UNKNOWN_SERVER_ERROR per resource and change no
 * config; DeleteRecords answers KAFKA_STORAGE_ERROR per partition and moves no log start offset;
 * CreatePartitions and CreateTopics answer UNKNOWN_SERVER_ERROR and leave no partition or topic.
 * Every answer comes on the same open connection. After SIGKILL and a restart the state is the one
 * from before the disk filled, and the disk-free retries succeed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { RawClient } from '../support/raw-client.js';
import { startCli, kill, type CliServer } from '../support/cli-process.js';
import { canMountTmpfs, mountTmpfs, TMPFS_SKIP_REASON, type Tmpfs } from '../support/tmpfs.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';

const configsOf = async (c: RawClient, topic: string): Promise<Record<string, string>> => {
  const r = await c.send(32, 4, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: ['retention.ms', 'max.message.bytes'] }], includeSynonyms: false, includeDocumentation: false });
  return Object.fromEntries(r.results[0]!.configs.map((k) => [k.name, k.value ?? '']));
};
const earliest = async (c: RawClient, topic: string, partition: number): Promise<bigint> => {
  const r = await c.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 1000, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -2n }] }] });
  return r.topics[0]!.partitions[0]!.offset;
};
const partitionCounts = async (c: RawClient, topics: string[]): Promise<Array<[string, number, number]>> => {
  const r = await c.send(3, 12, { topics: topics.map((name) => ({ topicId: ZERO_UUID, name })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return r.topics.map((t): [string, number, number] => [t.name ?? '', t.errorCode, t.partitions.length]);
};
const createTopic = (c: RawClient, name: string, partitions: number) =>
  c.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name, numPartitions: partitions, replicationFactor: 1, configs: [{ name: 'retention.ms', value: '5000000' }] }], timeoutMs: 5000 });

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe.skipIf(!canMountTmpfs)(`admin writes on a full disk (${TMPFS_SKIP_REASON})`, () => {
  it('answer errors, change nothing, and a restart agrees', async () => {
    const fs: Tmpfs = mountTmpfs(4 << 20)!;
    cleanups.push(() => fs.unmount());
    const started = async (args: string[]): Promise<CliServer> => {
      const server = await startCli(args);
      cleanups.push(() => kill(server, 'SIGKILL'));
      return server;
    };
    const connect = async (port: number): Promise<RawClient> => {
      const client = await RawClient.connect(port);
      cleanups.push(() => client.close());
      return client;
    };
    const dataDir = `${fs.dir}/data`;
    const args = ['--port', '0', '--data-dir', dataDir, '--config', 'offsets.topic.num.partitions=1'];
    const first = await started(args);
    let c = await connect(first.port);
    expect((await createTopic(c, 'ft', 2)).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const records = encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: Array.from({ length: 20 }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`) })) });
    for (const index of [0, 1]) {
      const produced = await c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'ft', topicId: ZERO_UUID, partitionData: [{ index, records }] }] });
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.NONE);
    }
    const before = { retention: '1000000' };
    expect((await c.send(44, 0, { resources: [{ resourceType: 2, resourceName: 'ft', configs: [{ name: 'retention.ms', configOperation: 0, value: before.retention }] }], validateOnly: false })).responses[0]!.errorCode).toBe(ErrorCode.NONE);

    fs.fill();
    const iac = await c.send(44, 0, { resources: [{ resourceType: 2, resourceName: 'ft', configs: [{ name: 'retention.ms', configOperation: 0, value: '2000000' }] }], validateOnly: false });
    expect(iac.responses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    const alter = await c.send(33, 1, { resources: [{ resourceType: 2, resourceName: 'ft', configs: [{ name: 'max.message.bytes', value: '12345' }] }], validateOnly: false });
    expect(alter.responses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    const broker = await c.send(44, 0, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.bytes', configOperation: 0, value: '99999999' }] }], validateOnly: false });
    expect(broker.responses[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(await configsOf(c, 'ft')).toEqual({ 'retention.ms': before.retention, 'max.message.bytes': '1048588' });

    const deleted = await c.send(21, 1, { topics: [{ name: 'ft', partitions: [{ partitionIndex: 0, offset: 10n }, { partitionIndex: 1, offset: 5n }] }], timeoutMs: 5000 });
    expect(deleted.topics[0]!.partitions.map((p: { errorCode: number; lowWatermark: bigint }) => [p.errorCode, p.lowWatermark])).toEqual([[ErrorCode.KAFKA_STORAGE_ERROR, -1n], [ErrorCode.KAFKA_STORAGE_ERROR, -1n]]);
    expect([await earliest(c, 'ft', 0), await earliest(c, 'ft', 1)]).toEqual([0n, 0n]);

    const grown = await c.send(37, 1, { topics: [{ name: 'ft', count: 5, assignments: null }], timeoutMs: 5000, validateOnly: false });
    expect(grown.results[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    const created = await createTopic(c, 'ft2', 3);
    expect(created.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(await partitionCounts(c, ['ft', 'ft2'])).toEqual([['ft', ErrorCode.NONE, 2], ['ft2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0]]);
    expect(readdirSync(dataDir).filter((n) => n.startsWith('ft')).sort()).toEqual(['ft-0', 'ft-1']);

    fs.free();
    await kill(first, 'SIGKILL');
    const second = await started(args);
    c = await connect(second.port);
    expect(await configsOf(c, 'ft')).toEqual({ 'retention.ms': before.retention, 'max.message.bytes': '1048588' });
    expect([await earliest(c, 'ft', 0), await earliest(c, 'ft', 1)]).toEqual([0n, 0n]);
    expect(await partitionCounts(c, ['ft', 'ft2'])).toEqual([['ft', ErrorCode.NONE, 2], ['ft2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 0]]);
    // With space, the same requests succeed.
    expect((await c.send(37, 1, { topics: [{ name: 'ft', count: 5, assignments: null }], timeoutMs: 5000, validateOnly: false })).results[0]!.errorCode).toBe(ErrorCode.NONE);
    expect((await createTopic(c, 'ft2', 3)).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const again = await c.send(21, 1, { topics: [{ name: 'ft', partitions: [{ partitionIndex: 0, offset: 10n }] }], timeoutMs: 5000 });
    expect(again.topics[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.NONE, lowWatermark: 10n });
  });
});
