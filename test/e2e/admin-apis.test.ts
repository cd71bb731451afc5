/**
 * OffsetDelete (47), DescribeCluster (60) and DescribeConfigs (32) on the wire, with our own codec
 * as the client, against Kafka 4.3's answers (see the handlers in src/apis/ for the Kafka code
 * each follows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultOffsetCommitRequest } from '../../src/protocol/messages/OffsetCommitRequest.js';
import { javaDouble } from '../../src/configs/config-def.js';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
let client: RawClient;

beforeAll(async () => {
  server = await startTestServer({ config: { 'log.segment.bytes': 2000000, 'log.cleaner.min.cleanable.ratio': '1', 'offsets.retention.minutes': 60 } });
  client = await RawClient.connect(server.port);
  const created = await client.send(19, 4, {
    topics: [
      { name: 'od-a', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [] },
      { name: 'od-b', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
    ],
    timeoutMs: 10000,
    validateOnly: false,
  });
  expect(created.topics.map((t: { errorCode: number }) => t.errorCode)).toEqual([0, 0]);
});

afterAll(async () => {
  client.close();
  await server.stop();
});

async function commit(group: string, topic: string, partitions: number[], offset = 3n): Promise<void> {
  const res = await client.send(8, 8, {
    ...defaultOffsetCommitRequest(),
    groupId: group,
    topics: [{ name: topic, topicId: '', partitions: partitions.map((p) => ({ partitionIndex: p, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' })) }],
  } as any);
  for (const t of res.topics) for (const p of t.partitions) expect(p.errorCode).toBe(0);
}

describe('OffsetDelete v0', () => {
  it('answers INVALID_GROUP_ID for "" and GROUP_ID_NOT_FOUND for an unknown group', async () => {
    expect(await client.send(47, 0, { groupId: '', topics: [{ name: 'od-a', partitions: [{ partitionIndex: 0 }] }] })).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, throttleTimeMs: 0, topics: [] });
    expect(await client.send(47, 0, { groupId: 'nope', topics: [{ name: 'od-a', partitions: [{ partitionIndex: 0 }] }] })).toEqual({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, throttleTimeMs: 0, topics: [] });
  });

  it('tombstones the offsets of a group with no members, unknown topics and partitions answered first', async () => {
    await commit('od-simple', 'od-a', [0, 1]);
    await commit('od-simple', 'od-b', [0]);
    const res = await client.send(47, 0, {
      groupId: 'od-simple',
      topics: [
        { name: 'od-a', partitions: [{ partitionIndex: 0 }, { partitionIndex: 7 }] },
        { name: 'missing', partitions: [{ partitionIndex: 0 }] },
        { name: 'od-b', partitions: [{ partitionIndex: 0 }] },
      ],
    });
    expect(res).toEqual({
      errorCode: 0,
      throttleTimeMs: 0,
      topics: [
        { name: 'od-a', partitions: [{ partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }, { partitionIndex: 0, errorCode: 0 }] },
        { name: 'missing', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
        { name: 'od-b', partitions: [{ partitionIndex: 0, errorCode: 0 }] },
      ],
    });
    expect(server.broker.offsets.fetch('od-simple', 'od-a', 0)).toBeUndefined();
    expect(server.broker.offsets.fetch('od-simple', 'od-a', 1)?.committedOffset).toBe(3n);
    expect(server.broker.offsets.fetch('od-simple', 'od-b', 0)).toBeUndefined();
    // A partition without an offset is answered NONE too.
    const again = await client.send(47, 0, { groupId: 'od-simple', topics: [{ name: 'od-a', partitions: [{ partitionIndex: 0 }] }] });
    expect(again.topics).toEqual([{ name: 'od-a', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
  });

  it('answers NON_EMPTY_GROUP for a classic group with members whose protocol type is not "consumer"', async () => {
    const joiner = await RawClient.connect(server.port);
    try {
      const join = await joiner.send(11, 0, {
        ...defaultJoinGroupRequest(),
        groupId: 'od-connect',
        sessionTimeoutMs: 30000,
        protocolType: 'connect',
        protocols: [{ name: 'default', metadata: Buffer.from([0, 1]) }],
      } as any);
      expect(join.errorCode).toBe(0);
      const res = await client.send(47, 0, { groupId: 'od-connect', topics: [{ name: 'od-a', partitions: [{ partitionIndex: 0 }] }] });
      expect(res).toEqual({ errorCode: ErrorCode.NON_EMPTY_GROUP, throttleTimeMs: 0, topics: [] });
    } finally {
      joiner.close();
    }
  });
});

describe('DescribeCluster v0-2', () => {
  it('describes this node as the only broker and the controller', async () => {
    for (const version of [0, 1, 2]) {
      const res = await client.send(60, version, { includeClusterAuthorizedOperations: version === 2, endpointType: 1, includeFencedBrokers: false });
      expect(res).toEqual({
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        endpointType: 1,
        clusterId: server.broker.clusterId,
        controllerId: 1,
        brokers: [{ brokerId: 1, host: server.broker.advertised.host, port: server.broker.advertised.port, rack: null, isFenced: false }],
        // CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE
        clusterAuthorizedOperations: version === 2 ? 8096 : -2147483648,
      });
    }
  });

  it('refuses controller and unknown endpoint types', async () => {
    const controller = await client.send(60, 1, { includeClusterAuthorizedOperations: false, endpointType: 2, includeFencedBrokers: false });
    expect(controller).toMatchObject({ errorCode: ErrorCode.MISMATCHED_ENDPOINT_TYPE, errorMessage: 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER', brokers: [], controllerId: -1, clusterId: '' });
    const unknown = await client.send(60, 2, { includeClusterAuthorizedOperations: false, endpointType: 9, includeFencedBrokers: false });
    expect(unknown).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: 'Unsupported endpoint type 9' });
  });
});

describe('DescribeConfigs v1-4', () => {
  const res = (resourceType: number, resourceName: string, configurationKeys: string[] | null = null) => ({ resourceType, resourceName, configurationKeys });

  it('describes the broker configs we honour with sources, synonyms, types and documentation', async () => {
    const r = await client.send(32, 4, { resources: [res(4, '1')], includeSynonyms: true, includeDocumentation: true });
    const configs = r.results[0]!.configs;
    const byName = Object.fromEntries(configs.map((c: any) => [c.name, c]));
    expect(configs.some((c: any) => c.name.startsWith('mock.'))).toBe(false);
    expect(byName['offsets.retention.minutes']).toEqual({
      name: 'offsets.retention.minutes',
      value: '60',
      readOnly: true,
      configSource: 4,
      isSensitive: false,
      synonyms: [{ name: 'offsets.retention.minutes', value: '60', source: 4 }, { name: 'offsets.retention.minutes', value: '10080', source: 5 }],
      configType: 3,
      documentation: expect.stringContaining('offsets'),
    });
    expect(byName['log.cleaner.min.cleanable.ratio']).toMatchObject({ value: '1.0', configSource: 4, readOnly: false, configType: 6 });
    // ConfigHelper.configSynonyms drops synonyms ahead of the config itself: log.roll.hours's default is not listed.
    expect(byName['log.roll.ms']).toMatchObject({ value: null, configSource: 5, synonyms: [], readOnly: false, configType: 5 });
    expect(byName['log.roll.hours']).toMatchObject({ value: '168', configSource: 5, synonyms: [{ name: 'log.roll.hours', value: '168', source: 5 }] });
    expect(byName['node.id']).toMatchObject({ value: '1', configSource: 4, synonyms: [{ name: 'node.id', value: '1', source: 4 }] });
    expect(byName['group.consumer.assignors']).toMatchObject({ value: 'uniform,range', configSource: 5, configType: 7 });
  });

  it("documents a group's configs with GroupConfig's text, as a 4.3.1 broker (adversarial trial 24)", async () => {
    const r = await client.send(32, 4, { resources: [res(32, 'doc-group', ['consumer.session.timeout.ms', 'share.auto.offset.reset'])], includeSynonyms: false, includeDocumentation: true });
    expect(r.results[0]!.configs.map((c: any) => [c.name, c.value, c.configSource, c.documentation])).toEqual([
      ['consumer.session.timeout.ms', '45000', 5, 'The timeout to detect client failures when using the consumer group protocol.'],
      ['share.auto.offset.reset', 'latest', 5, expect.stringContaining('The strategy to initialize the share-partition start offset.')],
    ]);
  });

  it('leaves synonyms and documentation out unless asked, and filters by key', async () => {
    const r = await client.send(32, 1, { resources: [res(4, '1', ['message.max.bytes', 'nope'])], includeSynonyms: false, includeDocumentation: false });
    expect(r.results).toEqual([
      {
        errorCode: 0,
        errorMessage: '',
        resourceType: 4,
        resourceName: '1',
        configs: [{ name: 'message.max.bytes', value: '1048588', readOnly: false, configSource: 5, isSensitive: false, synonyms: [], configType: 0, documentation: '' }],
      },
    ]);
  });

  it('answers broker "" with the cluster defaults (min.insync.replicas, as a KRaft controller bootstraps it) and other broker ids with INVALID_REQUEST', async () => {
    const r = await client.send(32, 4, { resources: [res(4, ''), res(4, '2'), res(4, 'x'), res(8, '')], includeSynonyms: true, includeDocumentation: false });
    expect(r.results[0]!.configs).toEqual([
      { name: 'min.insync.replicas', value: '1', readOnly: false, configSource: 3, isSensitive: false, synonyms: [{ name: 'min.insync.replicas', value: '1', source: 3 }], configType: 3, documentation: null },
    ]);
    expect(r.results.map((x: any) => [x.errorCode, x.errorMessage, x.configs.length])).toEqual([
      [0, '', 1],
      [ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1 or empty string, but received 2', 0],
      [ErrorCode.INVALID_REQUEST, 'Broker id must be an integer, but it is: x', 0],
      [ErrorCode.INVALID_REQUEST, 'Broker id must not be empty', 0],
    ]);
  });

  it('refuses to remove the cluster-level min.insync.replicas (KIP-966 ELR, as a 4.3.1 broker), by DELETE or by an AlterConfigs without it, and keeps it', async () => {
    const message = 'Cluster-level min.insync.replicas cannot be removed while ELR is enabled.';
    const deleted = await client.send(44, 1, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'min.insync.replicas', configOperation: 1, value: null }] }], validateOnly: false });
    expect(deleted.responses.map((r: any) => [r.errorCode, r.errorMessage])).toEqual([[ErrorCode.INVALID_CONFIG, message]]);
    const replaced = await client.send(33, 2, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', value: '1000' }] }], validateOnly: false });
    expect(replaced.responses.map((r: any) => [r.errorCode, r.errorMessage])).toEqual([[ErrorCode.INVALID_CONFIG, message]]);
    const r = await client.send(32, 4, { resources: [res(4, '')], includeSynonyms: false, includeDocumentation: false });
    expect(r.results[0]!.configs.map((c: any) => [c.name, c.value])).toEqual([['min.insync.replicas', '1']]);
  });

  it('describes topics: user topics from the broker defaults, __consumer_offsets compacted', async () => {
    const r = await client.send(32, 4, { resources: [res(2, 'od-a'), res(2, '__consumer_offsets', ['cleanup.policy', 'segment.bytes', 'retention.ms'])], includeSynonyms: true, includeDocumentation: false });
    const [user, offsets] = r.results;
    const u = Object.fromEntries(user!.configs.map((c: any) => [c.name, c]));
    expect(Object.keys(u)).toContain('min.insync.replicas');
    expect(u['cleanup.policy']).toMatchObject({ value: 'delete', configSource: 5, synonyms: [{ name: 'log.cleanup.policy', value: 'delete', source: 5 }], configType: 7 });
    expect(u['segment.bytes']).toMatchObject({ value: '2000000', configSource: 4, synonyms: [{ name: 'log.segment.bytes', value: '2000000', source: 4 }, { name: 'log.segment.bytes', value: '1073741824', source: 5 }] });
    expect(u['min.cleanable.dirty.ratio']).toMatchObject({ value: '1.0', configSource: 4 });
    expect(u['segment.ms']).toMatchObject({ value: '604800000', configSource: 5, synonyms: [] });
    expect(offsets!.configs).toEqual([
      { name: 'cleanup.policy', value: 'compact', readOnly: false, configSource: 1, isSensitive: false, synonyms: [{ name: 'cleanup.policy', value: 'compact', source: 1 }, { name: 'log.cleanup.policy', value: 'delete', source: 5 }], configType: 7, documentation: null },
      { name: 'retention.ms', value: '604800000', readOnly: false, configSource: 5, isSensitive: false, synonyms: [], configType: 5, documentation: null },
      { name: 'segment.bytes', value: '104857600', readOnly: false, configSource: 1, isSensitive: false, synonyms: [{ name: 'segment.bytes', value: '104857600', source: 1 }, { name: 'log.segment.bytes', value: '2000000', source: 4 }, { name: 'log.segment.bytes', value: '1073741824', source: 5 }], configType: 3, documentation: null },
    ]);
  });

  it('answers UNKNOWN_TOPIC_OR_PARTITION for missing topics and INVALID_TOPIC_EXCEPTION for illegal names', async () => {
    const r = await client.send(32, 4, { resources: [res(2, 'missing'), res(2, '')], includeSynonyms: false, includeDocumentation: false });
    expect(r.results.map((x: any) => [x.errorCode, x.errorMessage])).toEqual([
      [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ''],
      [ErrorCode.INVALID_TOPIC_EXCEPTION, 'Topic name is invalid: the empty string is not allowed'],
    ]);
  });

  it('fails every resource with INVALID_REQUEST when one has an unknown type', async () => {
    const r = await client.send(32, 4, { resources: [res(4, '1'), res(99, 'x')], includeSynonyms: false, includeDocumentation: false });
    expect(r.results.map((x: any) => [x.errorCode, x.resourceType, x.configs.length])).toEqual([
      [ErrorCode.INVALID_REQUEST, 4, 0],
      [ErrorCode.INVALID_REQUEST, 99, 0],
    ]);
  });

  it("formats doubles as Java's Double.toString", () => {
    expect([javaDouble(0.5), javaDouble(1), javaDouble(0), javaDouble(1e-4), javaDouble(12345678)]).toEqual(['0.5', '1.0', '0.0', '1.0E-4', '1.2345678E7']);
  });
});
