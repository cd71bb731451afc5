/**
 * Classic-protocol members inside a KIP-848 consumer group, over real sockets: the SyncGroup
 * protocol checks (`KafkaApis.handleSyncGroupRequest`'s v5+ mandatory protocol type and name,
 * before any routing; `throwIfClassicProtocolUnmatched`: the type must be "consumer" and the
 * name the member's first protocol, the one JoinGroup answered) and a classic JoinGroup whose
 * ConsumerProtocol subscription is unreadable (`deserializeSubscription` throws an
 * IllegalStateException, answered with UNKNOWN_SERVER_ERROR). No failure changes the group.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type ServerHandle } from '../../src/index.js';
import { Writer } from '../../src/protocol/primitives.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import * as Sub from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import { KIP848_CONFIG, hb } from '../support/kip848-group.js';
import { RawClient } from '../support/raw-client.js';
import { tempDataDir } from '../support/server.js';

function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  Sub.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return w.finish();
}

const CONSUMER_MEMBER = 'consumer-member-aaaaaa';

describe('classic members inside a consumer group', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function setup(topic: string, partitions: number) {
    const data = tempDataDir('kmc-cm-');
    cleanups.push(() => data.remove());
    const server = await startServer({ port: 0, dataDir: data.dir, logLevel: 'silent', config: KIP848_CONFIG });
    cleanups.push(() => server.close());
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    const created = await c.send(19, 5, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
    expect(created.topics[0]!.errorCode).toBe(0);
    return { server, c };
  }

  /** What a failure must leave as it is: the group's epochs, members and assignments. */
  function snapshot(server: ServerHandle, groupId: string) {
    const group = server.broker.consumer.group(groupId);
    if (!group) return null;
    const sets = (m: Map<string, Iterable<number>>) => [...m].map(([t, p]) => [t, [...p].sort()]).sort();
    return {
      groupEpoch: group.groupEpoch,
      assignmentEpoch: group.assignmentEpoch,
      members: [...group.members.values()]
        .map((m) => ({
          memberId: m.memberId,
          instanceId: m.instanceId,
          memberEpoch: m.memberEpoch,
          state: m.state,
          subscribed: m.subscribedTopicNames,
          assigned: sets(m.assigned as Map<string, Iterable<number>>),
          protocols: m.classicMemberMetadata?.supportedProtocols.map((p) => p.name) ?? null,
          sessionTimeoutMs: m.classicMemberMetadata?.sessionTimeoutMs ?? null,
        }))
        .sort((a, b) => a.memberId.localeCompare(b.memberId)),
    };
  }

  async function describeConsumer(c: RawClient, groupId: string) {
    const res = await c.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false });
    const g = res.groups[0]!;
    return { errorCode: g.errorCode, groupState: g.groupState, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, members: g.members.map((m) => m.memberId).sort() };
  }

  it('SyncGroup: v5+ needs protocol type and name (before routing), the name is the one JoinGroup answered', async () => {
    const { server, c } = await setup('t', 2);
    const G = 'sync-protocol';
    expect((await c.send(68, 1, hb(G, CONSUMER_MEMBER, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }))).errorCode).toBe(0);
    const meta = subscription(['t']);
    const join = await c.send(11, 5, {
      groupId: G, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: 'ci', protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: meta }, { name: 'roundrobin', metadata: meta }], reason: null,
    });
    expect(join.errorCode).toBe(0);
    expect(join.protocolName).toBe('range');
    const sync = (v: number, groupId: string, protocolType: string | null, protocolName: string | null, memberId = join.memberId, generationId = join.generationId) =>
      c.send(14, v, { groupId, generationId, memberId, groupInstanceId: 'ci', protocolType, protocolName, assignments: [] });

    const before = snapshot(server, G);
    const described = await describeConsumer(c, G);
    expect(before!.members).toHaveLength(2);

    // v5+ without protocol type or name: refused before routing, whatever the group.
    for (const [type, name] of [[null, null], [null, 'range'], ['consumer', null]] as const) {
      const res = await sync(5, G, type, name);
      expect(res.errorCode, `${type}/${name}`).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
      expect(res.assignment.length).toBe(0);
    }
    // ... even for an unknown member, or an empty group id (INVALID_GROUP_ID is the coordinator's).
    expect((await sync(5, G, null, null, 'nobody')).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await sync(5, '', null, null)).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await sync(5, '', 'consumer', 'range')).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);

    // The protocol name must be the member's first protocol; the type must be "consumer".
    expect((await sync(5, G, 'consumer', 'roundrobin')).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await sync(5, G, 'connect', 'range')).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    // The member checks come first: another member id for the instance id is fenced, whatever the protocol.
    expect((await sync(5, G, 'consumer', 'roundrobin', 'nobody')).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);

    expect(snapshot(server, G)).toEqual(before);
    expect(await describeConsumer(c, G)).toEqual(described);

    // The right protocol is served, and v0-4 (no protocol fields) passes the checks.
    const ok = await sync(5, G, 'consumer', 'range');
    expect(ok.errorCode).toBe(ErrorCode.NONE);
    expect(ok.protocolType).toBe('consumer');
    expect(ok.protocolName).toBe('range');
    expect((await sync(4, G, null, null)).errorCode).toBe(ErrorCode.NONE);

    // A plain classic group gets the same v5+ answer.
    const plain = await c.send(11, 5, {
      groupId: 'plain', sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: 'ci', protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: meta }], reason: null,
    });
    expect(plain.errorCode).toBe(0);
    expect((await sync(5, 'plain', null, null, plain.memberId, plain.generationId)).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await sync(5, 'plain', 'consumer', 'range', plain.memberId, plain.generationId)).errorCode).toBe(ErrorCode.NONE);
  });

  it('JoinGroup with unreadable subscription metadata: UNKNOWN_SERVER_ERROR, the group unchanged', async () => {
    const { server, c } = await setup('t', 2);
    const G = 'malformed';
    expect((await c.send(68, 1, hb(G, CONSUMER_MEMBER, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }))).errorCode).toBe(0);
    // A classic static member already in the group, so a rejoin with its instance id would replace it.
    const join = (instanceId: string | null, metadata: Buffer, memberId = '') =>
      c.send(11, 5, {
        groupId: G, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId, groupInstanceId: instanceId, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata }], reason: null,
      });
    const classic = await join('ci', subscription(['t']));
    expect(classic.errorCode).toBe(0);

    const before = snapshot(server, G);
    const described = await describeConsumer(c, G);
    expect(before!.members).toHaveLength(2);

    const malformed: Array<[string, Buffer]> = [
      ['empty', Buffer.alloc(0)],
      ['one byte', Buffer.from([0])],
      ['version -1', Buffer.from([0xff, 0xff])],
      ['truncated user data', Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 5])],
      ['truncated topics', Buffer.from([0, 1, 0, 0, 0, 2, 0, 1])],
    ];
    for (const [label, metadata] of malformed) {
      // A new static member, a new static member taking the place of "ci", and "ci" rejoining.
      for (const [who, res] of [
        ['new static', await join(`i-${label}`, metadata)],
        ['static replacing ci', await join('ci', metadata)],
        ['ci rejoining', await join('ci', metadata, classic.memberId)],
      ] as const) {
        expect(res.errorCode, `${label} / ${who}`).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
        expect(res.memberId).toBe('');
        expect(res.generationId).toBe(-1);
        expect(res.protocolName).toBe(''); // null, written as "" below v7
      }
    }
    expect(snapshot(server, G)).toEqual(before);
    expect(await describeConsumer(c, G)).toEqual(described);

    // The member checks come first: a wrong member id for the instance id is FENCED_INSTANCE_ID.
    expect((await join('ci', Buffer.alloc(0), 'someone-else')).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    // The classic member is still there and syncs.
    const sync = await c.send(14, 5, { groupId: G, generationId: classic.generationId, memberId: classic.memberId, groupInstanceId: 'ci', protocolType: 'consumer', protocolName: 'range', assignments: [] });
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    expect(snapshot(server, G)).toEqual(before);
  });
});
