/**
 * ACLs with the StandardAuthorizer's semantics over a SASL listener: CreateAcls / DescribeAcls /
 * DeleteAcls (kafkajs admin and raw), persisted; and what each API checks, with real clients:
 * READ on group g-ok but not g-denied, producing without WRITE, Metadata hiding undescribable
 * topics, DescribeGroups' authorized operations, InitProducerId, CreateTopics, the ACL APIs themselves.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { startServer } from '../../src/index.js';
import { startClosableServer, startTestServer, TEST_LOG_LEVEL } from '../support/server.js';
import { produceConsumeCommit } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { connectSasl, plainJaas } from '../support/sasl-client.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

export const ACL_CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms': 'PLAIN',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ admin: 'admin-secret', alice: 'alice-secret', bob: 'bob-secret' }),
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': 'User:admin',
  'connection.failed.authentication.delay.ms': 0,
};

type Server = Awaited<ReturnType<typeof startTestServer>>;

function kafkajs(server: Server, user: string): Kafka {
  return new Kafka({ clientId: `kafkajs-${user}`, brokers: [server.bootstrap], sasl: { mechanism: 'plain', username: user, password: `${user}-secret` }, logLevel: logLevel.NOTHING, retry: { retries: 3, initialRetryTime: 100 } });
}

async function sasl(server: Server, user: string): Promise<RawClient> {
  const c = await connectSasl(server.port, { mechanism: 'PLAIN', username: user, password: `${user}-secret` });
  cleanups.push(() => c.close());
  return c;
}

const acl = (resourceType: number, resourceName: string, principal: string, operation: number, extra: Partial<{ patternType: number; permissionType: number; host: string }> = {}) => ({
  resourceType, resourceName, resourcePatternType: extra.patternType ?? 3, principal, host: extra.host ?? '*', operation, permissionType: extra.permissionType ?? 3,
});
const TOPIC = 2;
const GROUP = 3;
const CLUSTER = 4;
const READ = 3;
const WRITE = 4;
const DESCRIBE = 8;

describe('ACL APIs', () => {
  it('kafkajs admin creates, describes and deletes ACLs; they survive a restart', async () => {
    const { server, close, dataDir } = await startClosableServer(cleanups, { config: ACL_CONFIG });
    const admin = kafkajs(server as Server, 'admin').admin();
    await admin.connect();
    await admin.createAcls({
      acl: [
        // kafkajs's AclResourceTypes, ResourcePatternTypes, AclOperationTypes, AclPermissionTypes are these codes
        // (its CommonJS exports of them cannot be imported by name from ESM).
        { resourceType: TOPIC, resourceName: 'orders', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: READ, permissionType: 3 },
        { resourceType: GROUP, resourceName: 'team-', resourcePatternType: 4, principal: 'User:alice', host: '*', operation: 2, permissionType: 3 },
      ],
    });
    const described = await admin.describeAcls({ resourceType: 1, resourcePatternType: 1, operation: 1, permissionType: 1 });
    expect(described.resources.map((r) => [r.resourceType, r.resourceName, r.resourcePatternType, r.acls])).toEqual([
      [TOPIC, 'orders', 3, [{ principal: 'User:alice', host: '*', operation: READ, permissionType: 3 }]],
      [GROUP, 'team-', 4, [{ principal: 'User:alice', host: '*', operation: 2, permissionType: 3 }]],
    ]);
    await admin.disconnect();
    await close();

    const again = await startServer({ port: 0, dataDir, logLevel: TEST_LOG_LEVEL, config: ACL_CONFIG });
    cleanups.push(() => again.close());
    const c = await connectSasl(again.port, { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' });
    cleanups.push(() => c.close());
    // MATCH finds the literal and the prefixed ACLs that apply to a name.
    const match = await c.send(29, 3, { resourceTypeFilter: GROUP, resourceNameFilter: 'team-blue', patternTypeFilter: 2, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
    expect(match.resources).toEqual([{ resourceType: GROUP, resourceName: 'team-', patternType: 4, acls: [{ principal: 'User:alice', host: '*', operation: 2, permissionType: 3 }] }]);
    const deleted = await c.send(31, 3, { filters: [
      { resourceTypeFilter: TOPIC, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: 'User:alice', hostFilter: null, operation: 1, permissionType: 1 },
      { resourceTypeFilter: 99, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 },
    ] });
    expect(deleted.filterResults).toEqual([
      { errorCode: 0, errorMessage: null, matchingAcls: [{ errorCode: 0, errorMessage: null, resourceType: TOPIC, resourceName: 'orders', patternType: 3, principal: 'User:alice', host: '*', operation: READ, permissionType: 3 }] },
      { errorCode: 42, errorMessage: 'Unknown patternFilter.', matchingAcls: [] },
    ]);
    const rest = await c.send(29, 3, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
    expect(rest.resources.map((r) => r.resourceName)).toEqual(['team-']);
  });

  it('refuses what Kafka refuses, one result per creation; SECURITY_DISABLED without an authorizer; a filter with UNKNOWN closes the connection', async () => {
    const server = await startTestServer({ config: ACL_CONFIG });
    cleanups.push(() => server.stop());
    const admin = await sasl(server, 'admin');
    const created = await admin.send(30, 2, { creations: [
      acl(CLUSTER, 'other', 'User:alice', DESCRIBE),
      acl(TOPIC, '', 'User:alice', READ),
      acl(99, 't', 'User:alice', READ),
      acl(TOPIC, 't', 'User:alice', 99),
      acl(TOPIC, 't', 'User:alice', READ, { patternType: 99 }),
      acl(TOPIC, 't', 'User:alice', READ),
      acl(TOPIC, 't', 'User:alice', READ),
    ] });
    expect(created.results).toEqual([
      { errorCode: 42, errorMessage: 'The only valid name for the CLUSTER resource is kafka-cluster' },
      { errorCode: 42, errorMessage: 'Invalid empty resource name' },
      { errorCode: 42, errorMessage: 'Invalid resourceType UNKNOWN' },
      { errorCode: 42, errorMessage: 'Invalid operation UNKNOWN' },
      { errorCode: 42, errorMessage: 'Invalid patternType UNKNOWN' },
      { errorCode: 0, errorMessage: '' },
      { errorCode: 0, errorMessage: '' },
    ]);
    // An ANY anywhere cannot become an ACL binding in Kafka: the whole request fails, nothing is created.
    const unbindable = await admin.send(30, 3, { creations: [acl(TOPIC, 'u', 'User:alice', READ), acl(TOPIC, 'u', 'User:alice', 1)] });
    expect(unbindable.results).toEqual([0, 1].map(() => ({ errorCode: -1, errorMessage: null })));
    const all = await admin.send(29, 1, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
    expect(all.resources).toEqual([{ resourceType: TOPIC, resourceName: 't', patternType: 3, acls: [{ principal: 'User:alice', host: '*', operation: READ, permissionType: 3 }] }]);
    await expect(admin.send(29, 1, { resourceTypeFilter: 0, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 })).rejects.toThrow('connection closed before a response');

    const open = await startTestServer();
    cleanups.push(() => open.stop());
    const c = await RawClient.connect(open.port);
    cleanups.push(() => c.close());
    expect(await c.send(29, 3, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }))
      .toMatchObject({ errorCode: 54, errorMessage: 'No Authorizer is configured on the broker', resources: [] });
    expect((await c.send(30, 3, { creations: [acl(TOPIC, 't', 'User:a', READ)] })).results).toEqual([{ errorCode: 54, errorMessage: 'No Authorizer is configured.' }]);
  });
});

describe('authorization of every API (StandardAuthorizer)', () => {
  async function scenario() {
    const server = await startTestServer({ config: ACL_CONFIG });
    cleanups.push(() => server.stop());
    const admin = await sasl(server, 'admin');
    for (const [topic, partitions] of [['acl-orders', 1], ['acl-secret', 1], ['acl-hidden', 1]] as const) {
      const r = await admin.send(19, 5, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
      expect(r.topics[0]!.errorCode).toBe(0);
    }
    const created = await admin.send(30, 3, { creations: [
      acl(TOPIC, 'acl-orders', 'User:alice', READ),
      acl(TOPIC, 'acl-orders', 'User:alice', WRITE),
      acl(TOPIC, 'acl-secret', 'User:alice', DESCRIBE),
      acl(GROUP, 'g-ok', 'User:alice', READ),
      acl(TOPIC, 'acl-n', 'User:alice', DESCRIBE, { patternType: 4 }),
    ] });
    expect(created.results.every((r) => r.errorCode === 0)).toBe(true);
    return server;
  }

  it('a principal with READ on group g-ok but not g-denied: kafkajs consumes and commits in g-ok; g-denied answers GROUP_AUTHORIZATION_FAILED', async () => {
    const server = await scenario();
    const alice = kafkajs(server, 'alice');
    const committed = () => server.broker.offsets.fetch('g-ok', 'acl-orders', 0)?.committedOffset;
    expect(await produceConsumeCommit(alice, 'acl-orders', 'g-ok', ['a', 'b'], committed, cleanups)).toEqual(['a', 'b']);

    const denied = kafkajs(server, 'alice').consumer({ groupId: 'g-denied', retry: { retries: 0 } });
    cleanups.push(() => denied.disconnect());
    const crashed = new Promise<Error>((resolve) => denied.on(denied.events.CRASH, (e) => resolve(e.payload.error)));
    await denied.connect();
    await denied.subscribe({ topic: 'acl-orders', fromBeginning: true });
    await denied.run({ eachMessage: async () => {} });
    // kafkajs reports a coordinator it could not find (it does the same against Kafka); the broker said GROUP_AUTHORIZATION_FAILED.
    expect(await crashed).toMatchObject({ name: 'KafkaJSGroupCoordinatorNotFound' });
    expect(new Set(server.faults.requests({ api: 'FindCoordinator', group: 'g-denied' }).map((r) => r.error))).toEqual(new Set(['GROUP_AUTHORIZATION_FAILED']));

    const c = await sasl(server, 'alice');
    expect((await c.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['g-ok', 'g-denied'] })).coordinators.map((k) => [k.key, k.errorCode])).toEqual([['g-ok', 0], ['g-denied', 30]]);
    expect(await c.send(11, 5, { groupId: 'g-denied', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null }))
      .toMatchObject({ errorCode: 30, memberId: '', generationId: -1, protocolName: '', leader: '' });
    const commit = await c.send(8, 8, { groupId: 'g-denied', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'acl-orders', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] }] } as never);
    expect(commit.topics).toEqual([{ name: 'acl-orders', topicId: expect.any(String), partitions: [{ partitionIndex: 0, errorCode: 30 }] }]);
    // In g-ok, a topic without READ: TOPIC_AUTHORIZATION_FAILED on its partitions, the others committed.
    const mixed = await c.send(8, 8, { groupId: 'g-ok', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [
      { name: 'acl-secret', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] },
    ] } as never);
    expect(mixed.topics[0]!.partitions).toEqual([{ partitionIndex: 0, errorCode: 29 }]);
  });

  it('a share member with READ on its group but only DESCRIBE on a topic: ShareFetch and ShareAcknowledge answer TOPIC_AUTHORIZATION_FAILED there (the partition stays in the session), the other topic is delivered', async () => {
    const server = await scenario();
    const admin = await sasl(server, 'admin');
    await admin.send(44, 1, { resources: [{ resourceType: 32, resourceName: 'g-ok', configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }], validateOnly: false } as never);
    const c = await sasl(server, 'alice');
    const memberId = 'AAAAAAAAAAAAAAAAAAAAAA';
    let hb = await c.send(76, 1, { groupId: 'g-ok', memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: ['acl-orders', 'acl-secret'] } as never);
    expect(hb.errorCode).toBe(0);
    while ((hb.assignment?.topicPartitions.length ?? 0) < 2) {
      await new Promise((resolve) => setImmediate(resolve));
      hb = await c.send(76, 1, { groupId: 'g-ok', memberId, memberEpoch: hb.memberEpoch, rackId: null, subscribedTopicNames: null } as never);
      expect(hb.errorCode).toBe(0);
    }
    const ids = { orders: server.broker.topics.get('acl-orders')!.topicId, secret: server.broker.topics.get('acl-secret')!.topicId };
    const accept = [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }];
    const fetch = (epoch: number, acks: typeof accept = [], maxWaitMs = 0) => c.send(78, 2, {
      groupId: 'g-ok', memberId, shareSessionEpoch: epoch, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
      topics: [ids.orders, ids.secret].map((topicId) => ({ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] })),
      forgottenTopicsData: [],
    } as never);
    type Fetched = Awaited<ReturnType<typeof fetch>>;
    const byTopic = (r: Fetched) => Object.fromEntries(r.responses.map((t) => [t.topicId === ids.orders ? 'orders' : 'secret', t.partitions.map((p) => ({ errorCode: p.errorCode, acknowledgeErrorCode: p.acknowledgeErrorCode, acquired: p.acquiredRecords.map((a) => [a.firstOffset, a.lastOffset]) }))]));
    // Nothing produced yet: the refused partition does not end the long poll, which waits for acl-orders (as Kafka's).
    let answered = false;
    const first = fetch(0, [], 60_000).then((r) => ((answered = true), r));
    await admin.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(answered).toBe(false);
    for (const name of ['acl-orders', 'acl-secret']) {
      const produced = await admin.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name, partitionData: [{ index: 0, records: encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v0') }] }) }] }] } as never);
      expect(produced.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    expect(byTopic(await first)).toEqual({ orders: [{ errorCode: 0, acknowledgeErrorCode: 0, acquired: [[0n, 0n]] }], secret: [{ errorCode: 29, acknowledgeErrorCode: 0, acquired: [] }] });
    // Nothing of acl-secret was acquired: its record stays available.
    expect(byTopic(await fetch(1, accept))).toEqual({ orders: [{ errorCode: 0, acknowledgeErrorCode: 0, acquired: [] }], secret: [{ errorCode: 29, acknowledgeErrorCode: 29, acquired: [] }] });
    const acked = await c.send(79, 2, { groupId: 'g-ok', memberId, shareSessionEpoch: 2, isRenewAck: false, topics: [{ topicId: ids.secret, partitions: [{ partitionIndex: 0, acknowledgementBatches: accept }] }] } as never);
    expect(acked.responses.map((t) => t.partitions.map((p) => p.errorCode))).toEqual([[29]]);
    // With READ granted, the same session's next fetch delivers acl-secret's record.
    expect((await admin.send(30, 3, { creations: [acl(TOPIC, 'acl-secret', 'User:alice', READ)] })).results[0]!.errorCode).toBe(0);
    expect(byTopic(await fetch(3))).toEqual({ secret: [{ errorCode: 0, acknowledgeErrorCode: 0, acquired: [[0n, 0n]] }] });
  });

  it('a KIP-848 regex subscription resolves to the topics the scheduling member may DESCRIBE only (internal topics included), as Kafka filters its resolution', async () => {
    const server = await scenario();
    const c = await sasl(server, 'alice');
    const memberId = 'BBBBBBBBBBBBBBBBBBBBBB';
    // acl-orders (READ), acl-secret (DESCRIBE) and acl-hidden (nothing) all match; so would __consumer_offsets.
    let hb = await c.send(68, 1, { groupId: 'g-ok', memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000, subscribedTopicNames: null, subscribedTopicRegex: '.*', serverAssignor: null, topicPartitions: [] } as never);
    expect(hb.errorCode).toBe(0);
    // The resolution runs off the heartbeat (a timer due at once); heartbeat until the assignment comes.
    while ((hb.assignment?.topicPartitions.length ?? 0) === 0) {
      await new Promise((resolve) => setImmediate(resolve));
      hb = await c.send(68, 1, { groupId: 'g-ok', memberId, memberEpoch: hb.memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null } as never);
      expect(hb.errorCode).toBe(0);
    }
    const nameOf = (id: string) => [...['acl-orders', 'acl-secret', 'acl-hidden']].find((n) => server.broker.topics.get(n)?.topicId === id) ?? id;
    expect(hb.assignment!.topicPartitions.map((t) => nameOf(t.topicId)).sort()).toEqual(['acl-orders', 'acl-secret']);
    expect(server.broker.groups.consumerGroupDescribe(['g-ok'], false, 0)[0]!.members[0]!.subscribedTopicRegex).toBe('.*');
  });

  it('producing without WRITE answers TOPIC_AUTHORIZATION_FAILED; Metadata hides the topics the principal may not DESCRIBE', async () => {
    const server = await scenario();
    const producer = kafkajs(server, 'alice').producer();
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    await expect(producer.send({ topic: 'acl-secret', messages: [{ value: 'x' }] })).rejects.toMatchObject({ type: 'TOPIC_AUTHORIZATION_FAILED' });
    const admin = kafkajs(server, 'alice').admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    expect((await admin.listTopics()).sort()).toEqual(['acl-orders', 'acl-secret']);

    const c = await sasl(server, 'alice');
    const md = await c.send(3, 10, { topics: [{ topicId: ZERO_UUID, name: 'acl-hidden' }, { topicId: ZERO_UUID, name: 'acl-new' }, { topicId: ZERO_UUID, name: 'acl-orders' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true } as never);
    // acl-hidden: no DESCRIBE; acl-new: DESCRIBE (prefixed acl-n) but no CREATE, so not auto-created.
    expect(md.topics.map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations])).toEqual([
      ['acl-orders', 0, (1 << READ) | (1 << WRITE) | (1 << DESCRIBE)],
      ['acl-new', 29, -2147483648],
      ['acl-hidden', 29, -2147483648],
    ]);
    expect(md.clusterAuthorizedOperations).toBe(0);
    expect(server.broker.topics.get('acl-new')).toBeUndefined();
    // acks=0: Kafka closes the connection instead of answering.
    const acks0 = await sasl(server, 'alice');
    await expect(acks0.send(0, 9, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: 'acl-secret', topicId: ZERO_UUID, partitionData: [{ index: 0, records: null }] }] } as never)).rejects.toThrow('connection closed before a response');
  });

  it('a topic named like an unknown topic id ("<id:...>") is checked as any name: TOPIC_AUTHORIZATION_FAILED; an unknown id itself answers UNKNOWN_TOPIC_ID', async () => {
    const server = await scenario();
    const c = await sasl(server, 'alice');
    const records = encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('x') }] });
    const produce = (topic: { name: string; topicId: string }, version: number) =>
      c.send(0, version, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ ...topic, partitionData: [{ index: 0, records }] }] } as never);
    const named = await produce({ name: '<id:acl-hidden>', topicId: ZERO_UUID }, 9);
    expect(named.responses[0]!.partitionResponses[0]!.errorCode).toBe(29);
    const unknownId = await produce({ name: '', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }, 13);
    expect(unknownId.responses[0]!.partitionResponses[0]!.errorCode).toBe(100);
  });

  it("DescribeGroups' authorized operations, InitProducerId, CreateTopics and the ACL APIs as a non-super user", async () => {
    const server = await scenario();
    const admin = await sasl(server, 'admin');
    const c = await sasl(server, 'alice');
    await c.send(8, 8, { groupId: 'g-ok', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'acl-orders', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] }] } as never);
    const dg = await c.send(15, 5, { groups: ['g-ok', 'g-denied'], includeAuthorizedOperations: true });
    expect(dg.groups.map((g) => [g.groupId, g.errorCode, g.authorizedOperations])).toEqual([['g-denied', 30, -2147483648], ['g-ok', 0, (1 << READ) | (1 << DESCRIBE)]]);
    expect((await admin.send(15, 5, { groups: ['g-ok'], includeAuthorizedOperations: true })).groups[0]!.authorizedOperations).toBe(3400);
    expect((await c.send(16, 4, { statesFilter: [], typesFilter: [] })).groups.map((g) => g.groupId)).toEqual(['g-ok']);
    // Idempotent producer: WRITE on some topic is enough (no IDEMPOTENT_WRITE on the cluster needed).
    expect(await c.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false })).toMatchObject({ errorCode: 0 });
    const bob = await sasl(server, 'bob');
    expect(await bob.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false })).toMatchObject({ errorCode: 31, producerId: -1n, producerEpoch: -1 });
    expect(await c.send(22, 4, { transactionalId: 'tx-1', transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false })).toMatchObject({ errorCode: 53 });
    const ct = await c.send(19, 5, { topics: [{ name: 'alice-topic', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(ct.topics).toEqual([expect.objectContaining({ name: 'alice-topic', errorCode: 29, errorMessage: 'Authorization failed.' })]);
    expect(await c.send(29, 3, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 })).toMatchObject({ errorCode: 31 });
    expect((await c.send(30, 3, { creations: [acl(TOPIC, 'x', 'User:alice', READ)] })).results).toEqual([{ errorCode: 31, errorMessage: 'Cluster authorization failed.' }]);
    expect((await c.send(51, 0, { deletions: [], upsertions: [{ name: 'zed', mechanism: 1, iterations: 4096, salt: Buffer.from('s'), saltedPassword: Buffer.alloc(32) }] })).results).toEqual([{ user: 'zed', errorCode: 31, errorMessage: 'Cluster authorization failed.' }]);
    // The request log names who asked.
    expect(server.faults.requests({ api: 'CreateAcls' }).map((r) => r.principal)).toEqual(['User:admin', 'User:alice']);
  });
});
