/**
 * Conformance of SASL, SCRAM credentials, ACLs and authorization against a Kafka 4.3.1 broker
 * started with the same security settings (oracle.ts `SECURE_CONFIG`: a SASL_PLAINTEXT broker
 * listener with PLAIN and SCRAM-SHA-256/512, the StandardAuthorizer, `admin` as super user). SASL
 * answers keep their error messages (recorded as `text`, which the runner compares as they are).
 */
import { describe } from 'vitest';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { saltedPassword, SCRAM_MECHANISMS } from '../../src/security/sasl/scram-formatter.js';
import type { RawClient } from '../support/raw-client.js';
import { plainToken, ScramClient } from '../support/sasl-client.js';
import { commit, join } from './groups.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets({ secure: true });

/** Whether the server closed the connection (within 5 s). */
async function closed(c: RawClient): Promise<string> {
  return c.waitClosed(5000).then(() => 'closed', () => 'open');
}

/** A SaslAuthenticate answer with its message kept (the runner masks `errorMessage` of errors). */
function auth(r: { errorCode: number; errorMessage: string | null; authBytes: Buffer; sessionLifetimeMs: bigint }, version: number) {
  return { errorCode: r.errorCode, text: r.errorMessage, lifetime: version >= 1 ? String(r.sessionLifetimeMs) : null };
}

/** Polls until `ready` (Kafka applies ACLs and credentials through its metadata log, a moment after answering). */
async function until<T>(s: Session, what: string, probe: () => Promise<T>, ready: (value: T) => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  let last = await probe();
  while (!ready(last)) {
    if (Date.now() > deadline) throw new Error(`${s.target}: ${what} did not happen within 20 s; last: ${JSON.stringify(last, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`);
    await sleep(50);
    last = await probe();
  }
}

const metadataNone = { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
const anyAcl = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };

describe('SaslHandshake and SaslAuthenticate', () => {
  scenario('PLAIN: SaslHandshake v0/v1, SaslAuthenticate v0-v2, then requests are served', async (s) => {
    for (const version of [0, 1, 2]) {
      const c = await s.raw(`v${version}`);
      s.record(`handshake v1 (authenticate v${version})`, await c.send(17, 1, { mechanism: 'PLAIN' }));
      s.record(`authenticate v${version}`, auth(await c.send(36, version, { authBytes: plainToken('alice', 'alice-secret') }), version));
      s.record('then Metadata', (await c.send(3, 12, metadataNone)).topics);
    }
    const raw = await s.raw('raw');
    s.record('handshake v0', await raw.send(17, 0, { mechanism: 'PLAIN' }));
    s.record('raw token answer', (await raw.exchangeFrame(plainToken('alice', 'alice-secret'))).toString('hex'));
    s.record('then Metadata after v0', (await raw.send(3, 12, metadataNone)).topics);
  });

  scenario('an unknown mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled ones, then the close', async (s) => {
    const c = await s.raw('c');
    s.record('handshake', await c.send(17, 1, { mechanism: 'GSSAPI' }));
    s.record('connection', await closed(c));
  });

  scenario("PLAIN failures: Kafka's messages, then the close", async (s) => {
    const cases: Array<[string, Buffer]> = [
      ['wrong password', plainToken('alice', 'wrong')],
      ['unknown user', plainToken('nobody', 'x')],
      ['empty password', plainToken('alice', '')],
      ['empty user', plainToken('', 'x')],
      ['another authorization id', plainToken('alice', 'alice-secret', 'admin')],
      ['two tokens', Buffer.from('alice\u0000alice-secret')],
    ];
    for (const [label, token] of cases) {
      const c = await s.raw(label);
      await c.send(17, 1, { mechanism: 'PLAIN' });
      s.record(label, auth(await c.send(36, 2, { authBytes: token }), 2));
      s.record(`${label}: connection`, await closed(c));
    }
  });

  scenario("SCRAM-SHA-256/512: success (the server signature verifies), wrong password and unknown user with Kafka's message", async (s) => {
    for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const c = await s.raw(`${mechanism} ok`);
      await c.send(17, 1, { mechanism });
      const client = new ScramClient(mechanism, 'alice', 'alice-secret');
      const first = await c.send(36, 2, { authBytes: client.first() });
      s.record(`${mechanism} server-first`, { ...auth(first, 2), iterations: /,i=(\d+)$/.exec(first.authBytes.toString())?.[1] });
      const last = await c.send(36, 2, { authBytes: client.final(first.authBytes) });
      s.record(`${mechanism} server-final`, { ...auth(last, 2), verifies: client.verify(last.authBytes) });
      s.record(`${mechanism} then Metadata`, (await c.send(3, 12, metadataNone)).topics);

      const wrong = await s.raw(`${mechanism} wrong`);
      await wrong.send(17, 1, { mechanism });
      const liar = new ScramClient(mechanism, 'alice', 'wrong');
      const f = await wrong.send(36, 2, { authBytes: liar.first() });
      s.record(`${mechanism} wrong password`, auth(await wrong.send(36, 2, { authBytes: liar.final(f.authBytes) }), 2));
      s.record(`${mechanism} wrong password: connection`, await closed(wrong));

      const unknown = await s.raw(`${mechanism} unknown`);
      await unknown.send(17, 1, { mechanism });
      s.record(`${mechanism} unknown user`, auth(await unknown.send(36, 1, { authBytes: new ScramClient(mechanism, 'nobody', 'x').first() }), 1));
      s.record(`${mechanism} unknown user: connection`, await closed(unknown));
    }
  });

  scenario('requests outside the exchange: before authenticating, a second ApiVersions, Metadata after the handshake, SASL requests after authenticating', async (s) => {
    const before = await s.raw('before');
    await before.send(3, 12, metadataNone).catch(() => null);
    s.record('Metadata before authenticating: connection', await closed(before));
    const twice = await s.raw('twice');
    s.record('ApiVersions', (await twice.send(18, 3, { clientSoftwareName: 'kmc', clientSoftwareVersion: '1' })).errorCode);
    await twice.send(18, 3, { clientSoftwareName: 'kmc', clientSoftwareVersion: '1' }).catch(() => null);
    s.record('second ApiVersions: connection', await closed(twice));
    const during = await s.raw('during');
    await during.send(17, 1, { mechanism: 'PLAIN' });
    s.record('Metadata after the handshake', await during.send(3, 9, { ...metadataNone, topics: [{ topicId: ZERO_UUID, name: 'x' }] } as never));
    s.record('Metadata after the handshake: connection', await closed(during));
    const after = await s.connAs('after', 'alice');
    s.record('SaslHandshake after authenticating', await after.send(17, 1, { mechanism: 'PLAIN' }));
    const a = await after.send(36, 2, { authBytes: plainToken('alice', 'alice-secret') });
    s.record('SaslAuthenticate after authenticating', { ...auth(a, 2) });
  });
});

describe('SCRAM credentials', () => {
  scenario('AlterUserScramCredentials and DescribeUserScramCredentials: results, refusals, and authentication with a new credential', async (s) => {
    const [u1, u2] = [s.name('scram-a'), s.name('scram-b')];
    const upsertion = (name: string, mechanism: 1 | 2, password: string, iterations = 4096) => {
      const salt = Buffer.from(`salt-${name}`);
      return { name, mechanism, iterations, salt, saltedPassword: saltedPassword(SCRAM_MECHANISMS[mechanism - 1]!, password, salt, iterations) };
    };
    const sorted = <T extends { user: string }>(results: T[]) => [...results].sort((a, b) => a.user.localeCompare(b.user));
    const altered = await s.send(51, 0, {
      deletions: [{ name: s.name('ghost'), mechanism: 1 }, { name: s.name('bad-mech'), mechanism: 7 }],
      upsertions: [upsertion(u1, 1, 'pw-a'), upsertion(u1, 2, 'pw-a'), upsertion(u2, 2, 'pw-b', 8192), upsertion(s.name('few'), 1, 'x', 100), upsertion(s.name('many'), 2, 'x', 20000), upsertion('', 1, 'x')],
    });
    s.record('alter', sorted(altered.results).map((r) => ({ ...r, user: r.user.replace(s.name(''), '<s>'), text: r.errorMessage })));
    await until(s, `${u2} described`, () => s.send(50, 0, { users: [{ name: u2 }] }), (r) => r.results[0]?.errorCode === 0);
    const one = await s.send(50, 0, { users: [{ name: u2 }] });
    s.record('describe one', one.results.map((r) => ({ ...r, user: '<u2>', credentialInfos: [...r.credentialInfos].sort((a, b) => a.mechanism - b.mechanism) })));
    const described = await s.send(50, 0, { users: [{ name: u2 }, { name: s.name('nobody') }, { name: u2 }] });
    s.record('describe', { ...described, results: sorted(described.results).map((r) => ({ ...r, user: r.user.replace(s.name(''), '<s>'), text: r.errorMessage })) });
    const c = await s.raw('new credential');
    await c.send(17, 1, { mechanism: 'SCRAM-SHA-512' });
    const client = new ScramClient('SCRAM-SHA-512', u2, 'pw-b');
    const first = await c.send(36, 2, { authBytes: client.first() });
    const last = await c.send(36, 2, { authBytes: client.final(first.authBytes) });
    s.record('authenticate with it', { ...auth(last, 2), verifies: client.verify(last.authBytes) });
    s.record('delete', (await s.send(51, 0, { deletions: [{ name: u2, mechanism: 2 }], upsertions: [] })).results.map((r) => ({ ...r, user: '<u2>' })));
    await until(s, `${u2} gone`, () => s.send(50, 0, { users: [{ name: u2 }] }), (r) => r.results[0]?.errorCode === 91);
  });
});

describe('ACLs', () => {
  scenario('CreateAcls, DescribeAcls and DeleteAcls: refusals, filters (literal, prefixed, MATCH), deletion', async (s) => {
    const principal = `User:${s.name('p')}`;
    const [topic, prefix, group] = [s.name('acl-t'), s.name('acl-'), s.name('acl-g')];
    const creation = (resourceType: number, resourceName: string, operation: number, extra: { patternType?: number; permissionType?: number; host?: string } = {}) => ({
      resourceType, resourceName, resourcePatternType: extra.patternType ?? 3, principal, host: extra.host ?? '*', operation, permissionType: extra.permissionType ?? 3,
    });
    s.record('create', (await s.send(30, 3, { creations: [
      creation(2, topic, 3),
      creation(2, topic, 4, { permissionType: 2, host: '10.0.0.1' }),
      creation(2, prefix, 2, { patternType: 4 }),
      creation(3, group, 8),
      creation(3, group, 8),
      creation(4, 'not-the-cluster', 8),
      creation(2, '', 3),
      creation(99, topic, 3),
      creation(2, topic, 99),
      creation(2, topic, 3, { patternType: 99 }),
      creation(2, topic, 3, { permissionType: 99 }),
    ] })).results.map((r) => ({ errorCode: r.errorCode, text: r.errorMessage })));
    for (const [label, bad] of [['operation ANY', creation(2, topic, 1)], ['pattern MATCH', creation(2, topic, 3, { patternType: 2 })], ['permission ANY', creation(2, topic, 3, { permissionType: 1 })], ['resource ANY', creation(1, topic, 3)]] as const) {
      s.record(`create with ${label}`, (await s.send(30, 3, { creations: [creation(2, s.name('never'), 3), bad] })).results.map((r) => ({ errorCode: r.errorCode, text: r.errorMessage })));
    }
    const mine = { ...anyAcl, principalFilter: principal };
    await until(s, 'the ACLs applied', () => s.send(29, 3, mine), (r) => r.resources.reduce((n, x) => n + x.acls.length, 0) === 4);
    const sortedResources = (r: { errorCode: number; resources: Array<{ resourceType: number; resourceName: string; patternType: number; acls: Array<{ operation: number; permissionType: number; host: string; principal: string }> }> }) => ({
      errorCode: r.errorCode,
      resources: r.resources
        .map((x) => ({ ...x, resourceName: x.resourceName.replace(s.name(''), '<s>'), acls: [...x.acls].sort((a, b) => a.operation - b.operation || a.permissionType - b.permissionType).map((a) => ({ ...a, principal: '<p>' })) }))
        .sort((a, b) => a.resourceType - b.resourceType || a.resourceName.localeCompare(b.resourceName) || a.patternType - b.patternType),
    });
    for (const version of [1, 2, 3]) s.record(`describe mine v${version}`, sortedResources(await s.send(29, version, mine)));
    s.record('describe MATCH on the topic', sortedResources(await s.send(29, 3, { ...mine, resourceTypeFilter: 2, resourceNameFilter: topic, patternTypeFilter: 2 })));
    s.record('describe LITERAL on the topic, DENY', sortedResources(await s.send(29, 3, { ...mine, resourceTypeFilter: 2, resourceNameFilter: topic, patternTypeFilter: 3, permissionType: 2 })));
    s.record('describe PREFIXED', sortedResources(await s.send(29, 3, { ...mine, patternTypeFilter: 4 })));
    const deleted = await s.send(31, 3, { filters: [
      { ...mine, resourceTypeFilter: 2, resourceNameFilter: topic, patternTypeFilter: 3 },
      { ...mine, resourceTypeFilter: 3, patternTypeFilter: 1, operation: 3 },
    ] });
    s.record('delete', deleted.filterResults.map((f) => ({ ...f, matchingAcls: [...f.matchingAcls].sort((a, b) => a.operation - b.operation).map((a) => ({ ...a, resourceName: a.resourceName.replace(s.name(''), '<s>'), principal: '<p>' })) })));
    await until(s, 'the deletion applied', () => s.send(29, 3, mine), (r) => r.resources.reduce((n, x) => n + x.acls.length, 0) === 2);
    s.record('describe after delete', sortedResources(await s.send(29, 3, mine)));
  });
});

describe('DescribeClientQuotas', () => {
  scenario('v0/v1: no quotas set; the filters Kafka refuses, with its messages', async (s) => {
    const filters: Array<[string, Array<{ entityType: string; matchType: number; match: string | null }>]> = [
      ['everything', []],
      ['user exact', [{ entityType: 'user', matchType: 0, match: 'alice' }]],
      ['user default, client-id specified', [{ entityType: 'user', matchType: 1, match: null }, { entityType: 'client-id', matchType: 2, match: null }]],
      ['empty type', [{ entityType: '', matchType: 2, match: null }]],
      ['type twice', [{ entityType: 'user', matchType: 2, match: null }, { entityType: 'user', matchType: 0, match: 'a' }]],
      ['unknown type', [{ entityType: 'group', matchType: 2, match: null }]],
      ['exact without a name', [{ entityType: 'user', matchType: 0, match: null }]],
      ['default with a name', [{ entityType: 'user', matchType: 1, match: 'a' }]],
      ['ip with user', [{ entityType: 'ip', matchType: 2, match: null }, { entityType: 'user', matchType: 2, match: null }]],
    ];
    for (const version of [0, 1]) {
      for (const [label, components] of filters) {
        const r = await s.send(48, version, { components, strict: false });
        s.record(`v${version} ${label}`, { ...r, text: r.errorMessage });
      }
    }
  });
});

/** Topics and ACLs for the authorization scenarios: alice may READ/WRITE t-ok, DESCRIBE t-secret, READ group g-ok; nothing on t-hidden or g-denied. */
async function aliceSetup(s: Session) {
  const names = { ok: s.name('t-ok'), secret: s.name('t-secret'), hidden: s.name('t-hidden'), gOk: s.name('g-ok'), gDenied: s.name('g-denied') };
  for (const t of [names.ok, names.secret, names.hidden]) await s.createTopic(t, 1);
  const acl = (resourceType: number, resourceName: string, operation: number) => ({ resourceType, resourceName, resourcePatternType: 3, principal: 'User:alice', host: '*', operation, permissionType: 3 });
  await s.send(30, 3, { creations: [acl(2, names.ok, 3), acl(2, names.ok, 4), acl(2, names.secret, 8), acl(3, names.gOk, 3)] });
  await until(s, "alice's ACLs applied", () => s.send(29, 3, { ...anyAcl, principalFilter: 'User:alice' }), (r) => r.resources.filter((x) => x.resourceName.endsWith(s.name(''))).reduce((n, x) => n + x.acls.length, 0) === 4);
  await s.send(8, 8, commit(names.gOk, -1, '', names.ok, [[0, 1n]]));
  return { ...names, alice: await s.connAs('alice', 'alice') };
}

/** Only this scenario's entries, sorted by name, with the suffix shown as <s>. */
function ownSorted<T extends { name?: string | null; groupId?: string }>(s: Session, items: T[]): T[] {
  const key = (x: T) => String(x.name ?? x.groupId ?? '');
  return items.filter((x) => key(x).endsWith(s.name(''))).sort((a, b) => key(a).localeCompare(key(b)));
}

describe('authorization errors', () => {
  scenario('OffsetCommit, JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetFetch, FindCoordinator: GROUP_AUTHORIZATION_FAILED and TOPIC_AUTHORIZATION_FAILED', async (s) => {
    const { alice, ok, secret, gOk, gDenied } = await aliceSetup(s);
    s.record('OffsetCommit v8 in a denied group', await alice.send(8, 8, commit(gDenied, -1, '', ok, [[0, 1n]])));
    s.record('OffsetCommit v2 in a denied group', await alice.send(8, 2, commit(gDenied, -1, '', ok, [[0, 1n]]) as never));
    const mixed = { ...commit(gOk, -1, '', ok, [[0, 2n]]), topics: [...commit(gOk, -1, '', ok, [[0, 2n]]).topics, ...commit(gOk, -1, '', secret, [[0, 1n]]).topics] };
    const committed = await alice.send(8, 8, mixed);
    s.record('OffsetCommit v8 to an allowed and a READ-less topic', { ...committed, topics: [...committed.topics].sort((a, b) => a.name.localeCompare(b.name)) });
    for (const version of [0, 5, 7, 9]) s.record(`JoinGroup v${version} denied`, await alice.send(11, version, join(gDenied, '', [ok]) as never));
    s.record('SyncGroup v5 denied', await alice.send(14, 5, { groupId: gDenied, generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] }));
    s.record('Heartbeat v4 denied', await alice.send(12, 4, { groupId: gDenied, generationId: 1, memberId: 'm', groupInstanceId: null }));
    s.record('LeaveGroup v5 denied', await alice.send(13, 5, { groupId: gDenied, memberId: '', members: [{ memberId: 'm', groupInstanceId: null, reason: null }] }));
    s.record('ConsumerGroupHeartbeat denied', await alice.send(68, 1, { groupId: gDenied, memberId: s.name('cm'), memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000, subscribedTopicNames: [ok], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] }));
    s.record('OffsetFetch v7 denied group', await alice.send(9, 7, { groupId: gDenied, topics: [{ name: ok, partitionIndexes: [0] }], groups: [], requireStable: false }));
    s.record('OffsetFetch v7 READ-less topic', await alice.send(9, 7, { groupId: gOk, topics: [{ name: secret, partitionIndexes: [0] }, { name: ok, partitionIndexes: [0] }], groups: [], requireStable: false }));
    const fetched = await alice.send(9, 8, { groupId: '', topics: null, requireStable: false, groups: [
      { groupId: gOk, memberId: null, memberEpoch: -1, topics: [{ name: ok, topicId: ZERO_UUID, partitionIndexes: [0] }, { name: secret, topicId: ZERO_UUID, partitionIndexes: [0] }] },
      { groupId: gDenied, memberId: null, memberEpoch: -1, topics: null },
    ] });
    s.record('OffsetFetch v8', { ...fetched, groups: fetched.groups.map((g) => ({ ...g, topics: [...g.topics].sort((a, b) => a.name.localeCompare(b.name)) })) });
    s.record('FindCoordinator v3 denied', await alice.send(10, 3, { key: gDenied, keyType: 0, coordinatorKeys: [] }));
    s.record('FindCoordinator v4', await alice.send(10, 4, { key: '', keyType: 0, coordinatorKeys: [gOk, gDenied] }));
    s.record('FindCoordinator v4 transactional id', await alice.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [s.name('tx')] }));
  });

  scenario('Produce, Fetch, ListOffsets, Metadata: TOPIC_AUTHORIZATION_FAILED, hidden topics, auto-creation, authorized operations', async (s) => {
    const { alice, ok, secret, hidden } = await aliceSetup(s);
    const records = encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v'), timestamp: 1_700_000_000_000n }] });
    const produced = await alice.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [ok, secret, hidden].map((name) => ({ name, topicId: ZERO_UUID, partitionData: [{ index: 0, records }] })) });
    s.record('Produce v9', { ...produced, responses: [...produced.responses].sort((a, b) => a.name.localeCompare(b.name)).map((r) => ({ ...r, partitionResponses: r.partitionResponses.map((p) => ({ ...p, logAppendTimeMs: '<t>' })) })) });
    const fetched = await alice.send(1, 11, {
      clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [secret, hidden].map((topic) => ({ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: ZERO_UUID, highWatermark: -1n }] })),
      forgottenTopicsData: [], rackId: '',
    });
    s.record('Fetch v11', { ...fetched, responses: [...fetched.responses].sort((a, b) => a.topic.localeCompare(b.topic)) });
    const listed = await alice.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [ok, hidden].map((name) => ({ name, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] })) });
    s.record('ListOffsets v7', { ...listed, topics: [...listed.topics].sort((a, b) => a.name.localeCompare(b.name)) });
    for (const version of [4, 10, 12]) {
      const topics = [ok, secret, hidden, s.name('t-missing')].map((name) => ({ topicId: ZERO_UUID, name }));
      const r = await alice.send(3, version, { topics, allowAutoTopicCreation: true, includeClusterAuthorizedOperations: version >= 8, includeTopicAuthorizedOperations: version >= 8 } as never);
      s.record(`Metadata v${version} named`, { ...r, topics: [...r.topics].sort((a, b) => String(a.name).localeCompare(String(b.name))) });
    }
    const all = await alice.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: true });
    s.record('Metadata v12 all topics (this scenario only)', ownSorted(s, all.topics));
    const byId = await alice.send(3, 12, { topics: [{ topicId: s.topicId(hidden), name: null }, { topicId: s.topicId(secret), name: null }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    s.record('Metadata v12 by id', { ...byId, topics: [...byId.topics].sort((a, b) => a.errorCode - b.errorCode) });
  });

  scenario('DescribeGroups, ListGroups, DeleteGroups, OffsetDelete, InitProducerId, CreateTopics, DeleteTopics, DescribeConfigs, DescribeCluster, ACL and SCRAM APIs as a principal without rights', async (s) => {
    const { alice, ok, secret, hidden, gOk, gDenied } = await aliceSetup(s);
    for (const version of [0, 3, 5]) s.record(`DescribeGroups v${version}`, await alice.send(15, version, { groups: [gOk, gDenied], includeAuthorizedOperations: version >= 3 }));
    s.record('DescribeGroups v5 as admin (super user)', await s.send(15, 5, { groups: [gOk], includeAuthorizedOperations: true }));
    s.record('ListGroups v4 (this scenario only)', ownSorted(s, (await alice.send(16, 4, { statesFilter: [], typesFilter: [] })).groups));
    const deleted = await alice.send(42, 2, { groupsNames: [gDenied, gOk] });
    s.record('DeleteGroups v2', { ...deleted, results: [...deleted.results].sort((a, b) => a.groupId.localeCompare(b.groupId)) });
    s.record('OffsetDelete in a denied group', await alice.send(47, 0, { groupId: gDenied, topics: [{ name: ok, partitions: [{ partitionIndex: 0 }] }] }));
    // Kafka may still be loading its transaction coordinator (COORDINATOR_LOAD_IN_PROGRESS): only the authorization is compared.
    s.record('InitProducerId v4, idempotent, WRITE on some topic: authorized', (await alice.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false })).errorCode !== 31);
    const bob = await s.connAs('bob', 'bob');
    s.record('InitProducerId v4, idempotent, no rights', await bob.send(22, 4, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false }));
    s.record('InitProducerId v4, transactional', await alice.send(22, 4, { transactionalId: s.name('tx'), transactionTimeoutMs: 60000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false }));
    const created = await alice.send(19, 7, { topics: [{ name: s.name('t-new'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    s.record('CreateTopics v7', { ...created, topics: created.topics.map((t) => ({ ...t, text: t.errorMessage })) });
    const dropped = await alice.send(20, 6, { topics: [ok, hidden, s.name('t-none')].map((name) => ({ name, topicId: ZERO_UUID })), topicNames: [], timeoutMs: 5000 });
    s.record('DeleteTopics v6', { ...dropped, responses: [...dropped.responses].sort((a, b) => String(a.name).localeCompare(String(b.name))) });
    const configs = await alice.send(32, 4, { resources: [{ resourceType: 2, resourceName: secret, configurationKeys: ['cleanup.policy'] }, { resourceType: 4, resourceName: '1', configurationKeys: ['num.partitions'] }, { resourceType: 32, resourceName: gDenied, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
    s.record('DescribeConfigs v4 (errors)', configs.results.map((r) => [r.resourceType, r.errorCode, r.errorCode === 0 ? r.configs.length : r.configs]).sort());
    s.record('DescribeCluster v1 cluster operations', (await alice.send(60, 1, { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false })).clusterAuthorizedOperations);
    s.record('DescribeCluster v1 cluster operations as admin', (await s.send(60, 1, { includeClusterAuthorizedOperations: true, endpointType: 1, includeFencedBrokers: false })).clusterAuthorizedOperations);
    s.record('DescribeAcls', await alice.send(29, 3, anyAcl));
    s.record('CreateAcls', await alice.send(30, 3, { creations: [{ resourceType: 2, resourceName: ok, resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 2, permissionType: 3 }] }));
    s.record('DeleteAcls', await alice.send(31, 3, { filters: [anyAcl] }));
    s.record('DescribeUserScramCredentials', await alice.send(50, 0, { users: [{ name: 'alice' }] }));
    s.record('AlterUserScramCredentials', await alice.send(51, 0, { deletions: [{ name: 'alice', mechanism: 1 }], upsertions: [] }));
    s.record('DescribeClientQuotas', await alice.send(48, 1, { components: [], strict: false }));
  });
});

describe('authorization errors of the topic, config and log APIs', () => {
  /** Sorted by name (or topic), so that Kafka's hash-set order does not matter. */
  const byName = <T extends { name?: string | null; topic?: string; resourceName?: string }>(items: T[]): T[] => [...items].sort((a, b) => String(a.name ?? a.topic ?? a.resourceName).localeCompare(String(b.name ?? b.topic ?? b.resourceName)));

  scenario('DeleteRecords, OffsetForLeaderEpoch, CreatePartitions, IncrementalAlterConfigs, AlterConfigs: per-topic, per-group and cluster refusals after the checks Kafka makes first', async (s) => {
    const { alice, ok, secret, hidden, gOk } = await aliceSetup(s);
    const missing = s.name('t-missing');
    const deleted = await alice.send(21, 2, { topics: [ok, hidden].map((name) => ({ name, partitions: [{ partitionIndex: 0, offset: 0n }] })), timeoutMs: 5000 });
    s.record('DeleteRecords v2 without DELETE', { ...deleted, topics: byName(deleted.topics) });
    const epochs = await alice.send(23, 4, { replicaId: -1, topics: [ok, secret, hidden].map((topic) => ({ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] })) });
    s.record('OffsetForLeaderEpoch v4 (DESCRIBE on two of three)', { ...epochs, topics: byName(epochs.topics) });
    const grown = await alice.send(37, 3, { topics: [ok, hidden, missing, secret, secret].map((name) => ({ name, count: 2, assignments: null })), timeoutMs: 5000, validateOnly: false });
    s.record('CreatePartitions v3 without ALTER, and a duplicate', { ...grown, results: byName(grown.results) });
    const set = (name: string, value: string | null) => ({ name, configOperation: 0, value });
    const incremental = await alice.send(44, 1, {
      resources: [
        { resourceType: 2, resourceName: ok, configs: [set('retention.ms', '1000')] },
        { resourceType: 2, resourceName: missing, configs: [set('retention.ms', '1000')] },
        { resourceType: 2, resourceName: secret, configs: [set('retention.ms', null)] },
        { resourceType: 4, resourceName: '', configs: [set('log.retention.ms', '1000')] },
        { resourceType: 4, resourceName: '1', configs: [set('log.dirs', '/tmp')] },
        { resourceType: 8, resourceName: '1', configs: [set('kafka.server', 'DEBUG')] },
        { resourceType: 32, resourceName: gOk, configs: [set('consumer.session.timeout.ms', '45000')] },
      ],
      validateOnly: false,
    });
    s.record('IncrementalAlterConfigs v1', incremental);
    const legacy = await alice.send(33, 2, {
      resources: [
        { resourceType: 2, resourceName: ok, configs: [{ name: 'retention.ms', value: '1000' }] },
        { resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', value: '1000' }] },
        { resourceType: 8, resourceName: '1', configs: [{ name: 'kafka.server', value: 'DEBUG' }] },
        { resourceType: 32, resourceName: gOk, configs: [{ name: 'consumer.session.timeout.ms', value: '45000' }] },
      ],
      validateOnly: false,
    });
    s.record('AlterConfigs v2', legacy);
  }, { exactMessages: true });

  scenario('DescribeLogDirs, ElectLeaders, ListConfigResources (cluster operations) and DescribeTopicPartitions (DESCRIBE per topic, authorized operations)', async (s) => {
    const { alice, ok, secret, hidden } = await aliceSetup(s);
    for (const version of [1, 4]) s.record(`DescribeLogDirs v${version}`, await alice.send(35, version, { topics: null }));
    const elected = await alice.send(43, 2, { electionType: 0, topicPartitions: [{ topic: ok, partitions: [0] }], timeoutMs: 5000 });
    s.record('ElectLeaders v2', { errorCode: elected.errorCode, results: elected.replicaElectionResults.map((r) => ({ topic: r.topic, partitions: r.partitionResult.map((p) => [p.partitionId, p.errorCode]) })) });
    s.record('ListConfigResources v1', await alice.send(74, 1, { resourceTypes: [] }));
    const named = await alice.send(75, 0, { topics: [ok, secret, hidden, s.name('t-missing')].map((name) => ({ name })), responsePartitionLimit: 2000, cursor: null });
    s.record('DescribeTopicPartitions v0 named', { ...named, topics: byName(named.topics) });
    const all = await alice.send(75, 0, { topics: [], responsePartitionLimit: 2000, cursor: null });
    s.record('DescribeTopicPartitions v0 all topics (this scenario only)', ownSorted(s, all.topics));
  });

  scenario('WriteTxnMarkers: CLUSTER_AUTHORIZATION_FAILED on every partition without ALTER or CLUSTER_ACTION on the cluster; a super user writes', async (s) => {
    const { alice, ok } = await aliceSetup(s);
    const markers = (producerId: bigint) => ({
      markers: [{ producerId, producerEpoch: 0, transactionResult: false, topics: [{ name: ok, partitionIndexes: [0] }, { name: s.name('t-missing'), partitionIndexes: [1] }], coordinatorEpoch: 0, transactionVersion: 0 }],
    });
    for (const version of [1, 2]) s.record(`WriteTxnMarkers v${version} as alice`, await alice.send(27, version, markers(123456789n)));
    s.record('WriteTxnMarkers v1 as admin', await (await s.conn()).send(27, 1, markers(123456790n)));
  });

  scenario('AlterShareGroupOffsets (READ on the group), DeleteShareGroupOffsets (DELETE on the group): READ per topic, refused topics first; DescribeShareGroupOffsets: DESCRIBE per topic', async (s) => {
    const { alice, ok, secret, hidden, gDenied } = await aliceSetup(s);
    const gShare = s.name('g-share');
    const acl = (operation: number) => ({ resourceType: 3, resourceName: gShare, resourcePatternType: 3, principal: 'User:alice', host: '*', operation, permissionType: 3 });
    await s.send(30, 3, { creations: [acl(3), acl(6)] });
    await until(s, "alice's share-group ACLs applied", () => s.send(29, 3, { ...anyAcl, principalFilter: 'User:alice' }), (r) => r.resources.filter((x) => x.resourceName.endsWith(s.name(''))).reduce((n, x) => n + x.acls.length, 0) === 6);
    const alter = (groupId: string, topics: string[]) => alice.send(91, 0, { groupId, topics: topics.map((topicName) => ({ topicName, partitions: [{ partitionIndex: 0, startOffset: 0n }] })) } as never);
    const del = (groupId: string, topics: string[]) => alice.send(92, 0, { groupId, topics: topics.map((topicName) => ({ topicName })) } as never);
    s.record('AlterShareGroupOffsets without READ on the group', await alter(gDenied, [ok]));
    s.record('DeleteShareGroupOffsets without DELETE on the group', await del(gDenied, [ok]));
    s.record('AlterShareGroupOffsets: READ-less, hidden and missing topics, then an allowed one', await alter(gShare, [secret, ok, hidden, s.name('t-missing')]));
    s.record('DeleteShareGroupOffsets: a READ-less topic and an allowed one', await del(gShare, [secret, ok]));
    // DescribeShareGroupOffsets: DESCRIBE per topic (alice may describe ok and secret, not hidden).
    await s.send(91, 0, { groupId: gShare, topics: [ok, hidden].map((topicName) => ({ topicName, partitions: [{ partitionIndex: 0, startOffset: 0n }] })) } as never);
    const describe = (groupId: string, topics: string[] | null) => alice.send(90, 1, { groups: [{ groupId, topics: topics && topics.map((topicName) => ({ topicName, partitions: [0] })) }] } as never);
    // Kafka records altered partitions as initialized just after it answers the alter.
    await until(s, 'both topics initialized', () => s.send(90, 1, { groups: [{ groupId: gShare, topics: null }] } as never), (r) => r.groups[0]!.topics.length === 2);
    s.record('DescribeShareGroupOffsets: named, an undescribable topic among them', await describe(gShare, [hidden, ok, secret]));
    s.record('DescribeShareGroupOffsets: all topics, an undescribable one left out', await describe(gShare, null));
    s.record('DescribeShareGroupOffsets without DESCRIBE on the group', await describe(gDenied, [ok]));
  }, { exactMessages: true });

  scenario('ShareFetch and ShareAcknowledge: READ on the group, then READ per topic after the share session (TOPIC_AUTHORIZATION_FAILED, acknowledgements too)', async (s) => {
    const { alice, ok, secret, gDenied } = await aliceSetup(s);
    const gShare = s.name('g-sharefetch');
    await s.send(30, 3, { creations: [{ resourceType: 3, resourceName: gShare, resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 }] });
    await until(s, "alice's share-group ACL applied", () => s.send(29, 3, { ...anyAcl, principalFilter: 'User:alice' }), (r) => r.resources.filter((x) => x.resourceName.endsWith(s.name(''))).reduce((n, x) => n + x.acls.length, 0) === 5);
    await s.send(44, 1, { resources: [{ resourceType: 32, resourceName: gShare, configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }], validateOnly: false } as never);
    // alice joins (DESCRIBE on both topics is enough) and heartbeats until she holds both partitions.
    const member = s.name('m');
    s.alias(member, 'M');
    const deadline = Date.now() + 30_000;
    let hb = await alice.send(76, 1, { groupId: gShare, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: [ok, secret] } as never);
    while ((hb.assignment?.topicPartitions.length ?? 0) < 2) {
      if (hb.errorCode !== 0 || Date.now() > deadline) throw new Error(`${s.target}: alice's share member got no assignment of both topics (error ${hb.errorCode})`);
      await sleep(100);
      hb = await alice.send(76, 1, { groupId: gShare, memberId: member, memberEpoch: hb.memberEpoch, rackId: null, subscribedTopicNames: null } as never);
    }
    const okId = s.topicId(ok);
    const secretId = s.topicId(secret);
    const accept = [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }];
    const fetch = (groupId: string, epoch: number, acks: typeof accept = []) => alice.send(78, 2, {
      groupId, memberId: member, shareSessionEpoch: epoch, maxWaitMs: 2000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
      topics: [okId, secretId].map((topicId) => ({ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] })),
      forgottenTopicsData: [],
    } as never);
    // Nothing to deliver yet: the refused partition does not end the wait for the other (MaxWaitMs
    // 2000; the answer cannot come sooner than that on any machine, only later).
    const asked = Date.now();
    const empty = await fetch(gShare, 0);
    s.record('ShareFetch, new session, no records yet: the refused topic answered after the wait for the other', { ...empty, waitedAtLeast1500Ms: Date.now() - asked >= 1500 });
    for (const t of [ok, secret]) await s.produce(t, 0, [{ value: 'v0', timestamp: 1_700_000_000_000n }]);
    s.record('ShareFetch without READ on the group', await fetch(gDenied, 0));
    s.record('ShareFetch, a new session again: the READ-less topic refused, the other delivered', await fetch(gShare, 0));
    s.record('ShareFetch with acknowledgements of both: the READ-less one refused', await fetch(gShare, 1, accept));
    const acknowledge = (groupId: string, epoch: number) => alice.send(79, 2, {
      groupId, memberId: member, shareSessionEpoch: epoch, isRenewAck: false,
      topics: [secretId, okId].map((topicId) => ({ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: accept }] })),
    } as never);
    s.record('ShareAcknowledge without READ on the group', await acknowledge(gDenied, 2));
    s.record('ShareAcknowledge: the READ-less topic refused, the other checked', await acknowledge(gShare, 2));
    s.record('ShareAcknowledge, a malformed batch of the READ-less topic: INVALID_REQUEST first', await alice.send(79, 2, {
      groupId: gShare, memberId: member, shareSessionEpoch: 3, isRenewAck: false,
      topics: [{ topicId: secretId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 1n, lastOffset: 0n, acknowledgeTypes: [1] }] }] }],
    } as never));
  });

  scenario("FindCoordinator v1-3 errors carry Kafka's default message (prepareOldResponse), v4 none", async (s) => {
    const { alice, gOk, gDenied } = await aliceSetup(s);
    for (const version of [1, 2, 3]) {
      s.record(`v${version} denied group`, await alice.send(10, version, { key: gDenied, keyType: 0, coordinatorKeys: [] }));
      s.record(`v${version} allowed group`, await alice.send(10, version, { key: gOk, keyType: 0, coordinatorKeys: [] }));
      s.record(`v${version} transactional id without DESCRIBE`, await alice.send(10, version, { key: s.name('tx'), keyType: 1, coordinatorKeys: [] }));
      s.record(`v${version} unknown key type`, await alice.send(10, version, { key: gOk, keyType: 7, coordinatorKeys: [] }));
    }
    s.record('v4 denied group', await alice.send(10, 4, { key: '', keyType: 0, coordinatorKeys: [gDenied] }));
  }, { exactMessages: true });

  scenario('DescribeProducers: READ per topic, after the name check', async (s) => {
    const { alice, ok, secret, hidden } = await aliceSetup(s);
    const r = await alice.send(61, 0, { topics: [ok, secret, 'bad name!', hidden, s.name('t-missing')].map((name) => ({ name, partitionIndexes: [0] })) });
    s.record('DescribeProducers v0', r.topics.map((t) => ({ ...t, name: t.name.replace(s.name(''), '<s>') })));
  }, { exactMessages: true });
});
