/**
 * Topic, broker and group configs (issue 15) with kafkajs and raw requests: configs given at
 * CreateTopics are stored and described as TOPIC_CONFIG, AlterConfigs replaces them and
 * IncrementalAlterConfigs edits them, everything survives a restart (`kmc-configs.json`), a deleted
 * topic's configs are forgotten; a broker config Kafka cannot change dynamically is refused with
 * Kafka's message and stays unchanged; a dynamic one reaches topics through their synonyms.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigResourceTypes } from 'kafkajs';
import { startClosableServer, startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const describeTopic = (name: string, keys: string[]) => ({ resources: [{ resourceType: 2, resourceName: name, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });

describe('topic configs', () => {
  it('are stored at CreateTopics, replaced by AlterConfigs, edited incrementally, kept across a restart and forgotten with the topic', async () => {
    const first = await startClosableServer(cleanups);
    const admin = kafkaClient(first.server.bootstrap, 'cfg').admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'cfg-t', numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }, { name: 'cleanup.policy', value: 'compact' }] }] });
    const described = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'cfg-t', configNames: ['retention.ms', 'cleanup.policy', 'max.message.bytes'] }] });
    const byName = Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.configSource]]));
    expect(byName).toEqual({ 'retention.ms': ['3600000', 1], 'cleanup.policy': ['compact', 1], 'max.message.bytes': ['1048588', 5] });

    // kafkajs alterConfigs is AlterConfigs (33): the set given replaces the topic's configs.
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'cfg-t', configEntries: [{ name: 'max.message.bytes', value: '51200' }] }] });
    const raw = await RawClient.connect(first.server.port);
    const after = await raw.send(32, 4, describeTopic('cfg-t', ['retention.ms', 'cleanup.policy', 'max.message.bytes']));
    expect(after.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['cleanup.policy', 'delete', 5],
      ['max.message.bytes', '51200', 1],
      ['retention.ms', '604800000', 5],
    ]);
    const inc = await raw.send(44, 1, { resources: [{ resourceType: 2, resourceName: 'cfg-t', configs: [{ name: 'cleanup.policy', configOperation: 2, value: 'compact' }, { name: 'segment.ms', configOperation: 0, value: '60000' }] }], validateOnly: false });
    expect(inc.responses).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 'cfg-t' }]);
    const topicId = first.server.broker.topics.get('cfg-t')!.id;
    expect(JSON.parse(readFileSync(join(first.dataDir, 'kmc-configs.json'), 'utf8')).topics[topicId]).toEqual({
      name: 'cfg-t',
      configs: { 'max.message.bytes': '51200', 'cleanup.policy': 'delete,compact', 'segment.ms': '60000' },
    });
    raw.close();
    await admin.disconnect();
    await first.close();

    const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
    const raw2 = await RawClient.connect(second.server.port);
    cleanups.push(() => raw2.close());
    const kept = await raw2.send(32, 4, describeTopic('cfg-t', ['cleanup.policy', 'segment.ms', 'max.message.bytes']));
    expect(kept.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['cleanup.policy', 'delete,compact', 1],
      ['max.message.bytes', '51200', 1],
      ['segment.ms', '60000', 1],
    ]);
    // Deleted and created again under the same name: a new topic id, no configs of the old one.
    await raw2.send(20, 6, { topics: [{ name: 'cfg-t', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], topicNames: [], timeoutMs: 1000 });
    await raw2.send(19, 7, { topics: [{ name: 'cfg-t', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const fresh = await raw2.send(32, 4, describeTopic('cfg-t', ['max.message.bytes']));
    expect(fresh.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([['max.message.bytes', '1048588', 5]]);
    await new Promise((r) => setTimeout(r, 0));
    await second.server.broker.configs.store.whenWritten();
    expect(JSON.parse(readFileSync(join(first.dataDir, 'kmc-configs.json'), 'utf8')).topics).toEqual({});
  });
});

describe('broker configs', () => {
  it("refuse what Kafka cannot change dynamically with Kafka's message, leaving the config unchanged; a dynamic one reaches topics", async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const alter = (name: string, configs: Array<[string, string]>) =>
      raw.send(44, 1, { resources: [{ resourceType: 4, resourceName: name, configs: configs.map(([n, value]) => ({ name: n, configOperation: 0, value })) }], validateOnly: false });
    expect((await alter('1', [['offsets.retention.minutes', '1']])).responses[0]).toEqual({
      errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Cannot update these configs dynamically: [offsets.retention.minutes]', resourceType: 4, resourceName: '1',
    });
    // Java's HashSet order, as Kafka prints the set.
    expect((await alter('1', [['log.retention.ms', '100000'], ['offsets.retention.minutes', '1'], ['num.partitions', '3']])).responses[0]!.errorMessage)
      .toBe('Cannot update these configs dynamically: [num.partitions, offsets.retention.minutes]');
    // Ours are read at start-up only, so refused so too.
    expect((await alter('', [['mock.flush.inline.sync.wait.ms', '200']])).responses[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Cannot update these configs dynamically: [mock.flush.inline.sync.wait.ms]',
    });
    expect((await alter('1', [['mock.flush.policy', 'bogus']])).responses[0]!.errorMessage).toBe('Cannot update these configs dynamically: [mock.flush.policy]');
    // SSL stores change only per listener (DynamicBrokerConfig.validateConfigs), at either level; the prefixed name is kept.
    const ssl = 'These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.password]';
    expect((await alter('', [['ssl.keystore.password', 'x']])).responses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: ssl });
    expect((await alter('1', [['ssl.keystore.password', 'x']])).responses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: ssl });
    const brokerConfigs = await raw.send(32, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['offsets.retention.minutes', 'log.retention.ms'] }], includeSynonyms: false, includeDocumentation: false });
    expect(brokerConfigs.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['log.retention.ms', null, 5],
      ['offsets.retention.minutes', '10080', 5],
    ]);

    // log.retention.ms is dynamic: set on broker 1, topics see it through retention.ms's synonyms.
    expect((await alter('1', [['log.retention.ms', '100000']])).responses[0]!.errorCode).toBe(0);
    await raw.send(19, 7, { topics: [{ name: 'bc-t', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const topic = await raw.send(32, 4, describeTopic('bc-t', ['retention.ms']));
    expect(topic.results[0]!.configs[0]).toMatchObject({
      value: '100000',
      configSource: 2,
      synonyms: [{ name: 'log.retention.ms', value: '100000', source: 2 }, { name: 'log.retention.hours', value: '168', source: 5 }],
    });
  });

  it('a TOPIC resource named "" or illegally is refused as Kafka\'s ControllerConfigurationValidator: IncrementalAlterConfigs, AlterConfigs, DescribeConfigs', async () => {
    const { server } = await startClosableServer(cleanups);
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const names = ['', 'bad name!', '..', 'x'.repeat(250)];
    const illegal = "Topic name is invalid: 'bad name!' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
    const long = `Topic name is invalid: the length of '${'x'.repeat(250)}' is longer than the max allowed length 249`;
    const expected = [
      [ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.'],
      [ErrorCode.INVALID_TOPIC_EXCEPTION, illegal],
      [ErrorCode.INVALID_TOPIC_EXCEPTION, "Topic name is invalid: '..' is not allowed"],
      [ErrorCode.INVALID_TOPIC_EXCEPTION, long],
    ];
    const incremental = await raw.send(44, 1, { resources: names.map((resourceName) => ({ resourceType: 2, resourceName, configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] })), validateOnly: true });
    expect(incremental.responses.map((r) => [r.errorCode, r.errorMessage])).toEqual(expected);
    const legacy = await raw.send(33, 2, { resources: names.map((resourceName) => ({ resourceType: 2, resourceName, configs: [{ name: 'retention.ms', value: '1' }] })), validateOnly: true });
    expect(legacy.responses.map((r) => [r.errorCode, r.errorMessage])).toEqual(expected);
    // DescribeConfigs (ConfigHelper) checks only Topic.validate: "" is an illegal name there.
    const described = await raw.send(32, 4, { resources: names.map((resourceName) => ({ resourceType: 2, resourceName, configurationKeys: null })), includeSynonyms: false, includeDocumentation: false });
    expect(described.results.map((r) => [r.errorCode, r.errorMessage])).toEqual([[ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name is invalid: the empty string is not allowed'], ...expected.slice(1)]);
  });

  it('a config store that cannot be read stops the start with a message naming the file', async () => {
    const first = await startClosableServer(cleanups);
    await first.close();
    writeFileSync(join(first.dataDir, 'kmc-configs.json'), '{ not json');
    await expect(startClosableServer(cleanups, { dataDir: first.dataDir })).rejects.toThrow(/kmc-configs\.json is not valid JSON/);
  });

  it('a stored value its type cannot parse stops the start with a message naming the file, the topic and the key', async () => {
    const first = await startClosableServer(cleanups);
    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 7, { topics: [{ name: 'bad-stored', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '5000' }] }], timeoutMs: 1000, validateOnly: false });
    raw.close();
    await first.close();
    const file = join(first.dataDir, 'kmc-configs.json');
    const state = JSON.parse(readFileSync(file, 'utf8'));
    const [topicId] = Object.keys(state.topics);
    state.topics[topicId!].configs['retention.ms'] = 'abc';
    writeFileSync(file, JSON.stringify(state));
    await expect(startClosableServer(cleanups, { dataDir: first.dataDir })).rejects.toThrow(
      `${file}: topic bad-stored (id ${topicId}), config retention.ms: Invalid value abc for configuration retention.ms: Not a number of type LONG`,
    );
  });

  it('a NaN or Java-form DOUBLE is stored and described as Kafka does; the topic takes records and the server restarts', async () => {
    const first = await startClosableServer(cleanups);
    const raw = await RawClient.connect(first.server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 7, { topics: [{ name: 'nan', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'min.cleanable.dirty.ratio', value: '0x1p-2' }] }], timeoutMs: 1000, validateOnly: false });
    const ratio = async (c: RawClient) => (await c.send(32, 4, describeTopic('nan', ['min.cleanable.dirty.ratio']))).results[0]!.configs[0]!.value;
    expect(await ratio(raw)).toBe('0.25');
    const set = (value: string) => raw.send(44, 1, { resources: [{ resourceType: 2, resourceName: 'nan', configs: [{ name: 'min.cleanable.dirty.ratio', configOperation: 0, value }] }], validateOnly: false });
    expect((await set('0.5d')).responses[0]).toMatchObject({ errorCode: 0 });
    expect(await ratio(raw)).toBe('0.5');
    expect((await set('NaN')).responses[0]).toMatchObject({ errorCode: 0 });
    expect(await ratio(raw)).toBe('NaN');
    const produce = await raw.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'nan', topicId: ZERO_UUID, partitionData: [{ index: 0, records: encodeRecordBatch({ baseOffset: 0n, timestamp: 1000n, records: [{ key: null, value: Buffer.from('v') }] }) }] }] });
    expect(produce.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0n });
    // A whole request is checked before anything is stored: the bad broker value keeps the good topic value out.
    const mixed = await raw.send(44, 1, { resources: [
      { resourceType: 2, resourceName: 'nan', configs: [{ name: 'min.cleanable.dirty.ratio', configOperation: 0, value: '0.75' }] },
      { resourceType: 4, resourceName: '', configs: [{ name: 'message.max.bytes', configOperation: 0, value: '-5' }] },
    ], validateOnly: false });
    expect(mixed.responses.map((r) => [r.errorCode, r.errorMessage])).toEqual([[0, null], [ErrorCode.INVALID_REQUEST, 'Invalid value -5 for configuration message.max.bytes: Value must be at least 0']]);
    raw.close();
    await first.close();
    const stored = JSON.parse(readFileSync(join(first.dataDir, 'kmc-configs.json'), 'utf8'));
    expect(stored.brokers['']).toEqual({ 'min.insync.replicas': '1' });
    const second = await startClosableServer(cleanups, { dataDir: first.dataDir });
    const again = await RawClient.connect(second.server.port);
    cleanups.push(() => again.close());
    expect(await ratio(again)).toBe('0.75');
  });

  it('min.insync.replicas: acks=-1 answers NOT_ENOUGH_REPLICAS once fewer brokers than it are up (at most the replica count counts)', async () => {
    const server = await startTestServer({ brokers: 3 });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 7, { topics: [
      { name: 'isr3', numPartitions: 1, replicationFactor: 3, assignments: [], configs: [{ name: 'min.insync.replicas', value: '3' }] },
      { name: 'isr9', numPartitions: 1, replicationFactor: 3, assignments: [], configs: [{ name: 'min.insync.replicas', value: '9' }] },
    ], timeoutMs: 1000, validateOnly: false });
    const produceTo = async (topic: string, acks: number) => {
      const leader = server.cluster.leaderOf(topic, 0);
      const c = await RawClient.connect(server.ports.get(leader)!);
      try {
        const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: Buffer.from('v') }] });
        const r = await c.send(0, 9, { transactionalId: null, acks, timeoutMs: 1000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }] });
        return r.responses[0]!.partitionResponses[0]!;
      } finally {
        c.close();
      }
    };
    // 9 is capped at the 3 replicas (Kafka 4's effective min ISR): all 3 up, accepted.
    expect((await produceTo('isr9', -1)).errorCode).toBe(0);
    const down = [1, 2, 3].find((id) => id !== server.cluster.leaderOf('isr3', 0))!;
    await server.cluster.stopBroker(down);
    expect(await produceTo('isr3', -1)).toMatchObject({ errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, errorMessage: null, baseOffset: -1n });
    expect((await produceTo('isr3', 1)).errorCode).toBe(0);
    await server.cluster.startBroker(down);
    expect((await produceTo('isr3', -1)).errorCode).toBe(0);
  });

  it('a Produce meets the topic configs as they are at that request: a topic override, the broker default through its synonym, the override removed', async () => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await raw.send(19, 7, { topics: [{ name: 'live-cfg', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 1000, validateOnly: false });
    const batch = encodeRecordBatch({ baseOffset: 0n, timestamp: 1n, records: [{ key: null, value: Buffer.alloc(300, 0x61) }] });
    const produce = async () => {
      const r = await raw.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'live-cfg', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }] });
      return r.responses[0]!.partitionResponses[0]!.errorCode;
    };
    const alter = (resourceType: number, resourceName: string, name: string, configOperation: number, value: string | null) =>
      raw.send(44, 1, { resources: [{ resourceType, resourceName, configs: [{ name, configOperation, value }] }], validateOnly: false });
    expect(await produce()).toBe(ErrorCode.NONE);
    expect((await alter(2, 'live-cfg', 'max.message.bytes', 0, '200')).responses[0]!.errorCode).toBe(0);
    expect(await produce()).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect((await alter(2, 'live-cfg', 'max.message.bytes', 1, null)).responses[0]!.errorCode).toBe(0);
    expect(await produce()).toBe(ErrorCode.NONE);
    // message.max.bytes is max.message.bytes' broker synonym, dynamic at the cluster default; the
    // group coordinator's batches follow it too (an OffsetCommit larger than one batch: -1, as a
    // 4.3.1 broker answers; adversarial trial 25).
    const commit = async () => {
      const r = await raw.send(8, 8, { groupId: 'live-cfg-g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'live-cfg', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: 'm'.repeat(300) }] }] });
      return r.topics[0]!.partitions[0]!.errorCode;
    };
    expect(await commit()).toBe(ErrorCode.NONE);
    expect((await alter(4, '', 'message.max.bytes', 0, '200')).responses[0]!.errorCode).toBe(0);
    expect(await produce()).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(await commit()).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect((await alter(4, '', 'message.max.bytes', 1, null)).responses[0]!.errorCode).toBe(0);
    expect(await produce()).toBe(ErrorCode.NONE);
    expect(await commit()).toBe(ErrorCode.NONE);
    // CreateTime 1 ms is far before the window once message.timestamp.before.max.ms is an hour.
    expect((await alter(2, 'live-cfg', 'message.timestamp.before.max.ms', 0, '3600000')).responses[0]!.errorCode).toBe(0);
    expect(await produce()).toBe(ErrorCode.INVALID_TIMESTAMP);
  });
});
