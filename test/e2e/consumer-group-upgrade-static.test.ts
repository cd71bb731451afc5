/**
 * Static membership across the online upgrade and the consumer group size limit (Kafka 4.3's
 * `GroupMetadataManager.consumerGroupHeartbeat`):
 * - a KIP-848 member reusing a classic static member's instance id converts the classic group
 *   first and then replaces that member (`getOrMaybeSubscribeStaticConsumerGroupMember`,
 *   `replaceMember`), taking over its target and its assignment;
 * - `throwIfConsumerGroupIsFull(group, memberId)` has no exemption for a static member rejoining
 *   under a new member id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { hb } from '../support/kip848-group.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer } from '../../src/protocol/primitives.js';
import * as Sub from '../../src/records/schemas/ConsumerProtocolSubscription.js';
import * as Asg from '../../src/records/schemas/ConsumerProtocolAssignment.js';
import { setup, joinRequest, syncRequest, settle, client as classicClient, consumerCoordinatorFor, fixedTopics } from '../coordinator/classic/harness.js';

const CONFIG = {
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.assignment.interval.ms': 0,
  'group.initial.rebalance.delay.ms': 0,
};

function bytes(encode: (w: Writer) => void): Buffer {
  const w = new Writer();
  encode(w);
  return w.finish();
}
const subscription = (topics: string[]) =>
  bytes((w) => {
    w.int16(1);
    Sub.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  });
const assignment = (topic: string, partitions: number[]) =>
  bytes((w) => {
    w.int16(0);
    Asg.encode(w, 0, { assignedPartitions: [{ topic, partitions }], userData: null });
  });

type TopicPartitions = Array<{ topicId: string; partitions: number[] }>;
const partitionsOf = (tps: TopicPartitions): number[] => tps.flatMap((t) => t.partitions).sort((a, b) => a - b);

describe('static membership: online upgrade and group.consumer.max.size', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start(config: Record<string, string | number> = {}) {
    return startClosableServer(cleanups, { config: { ...CONFIG, ...config } }, 'kmc-cg-static-');
  }

  async function client(server: ServerHandle) {
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return c;
  }

  it('a KIP-848 member reusing a classic static member instance id replaces it after the conversion', async () => {
    const { server } = await start();
    server.broker.topics.create('t', 2);
    const topicId = server.broker.topics.get('t')!.topicId;
    const c = await client(server);
    const G = 'up-static';

    // A classic static member alone in the group, holding t:0 and t:1.
    const j = await c.send(11, 5, {
      groupId: G, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: 'inst-x',
      protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(['t']) }], reason: null,
    });
    expect(j.errorCode).toBe(ErrorCode.NONE);
    const generation = j.generationId;
    const s = await c.send(14, 5, {
      groupId: G, generationId: generation, memberId: j.memberId, groupInstanceId: 'inst-x', protocolType: 'consumer', protocolName: 'range',
      assignments: [{ memberId: j.memberId, assignment: assignment('t', [0, 1]) }],
    });
    expect(s.errorCode).toBe(ErrorCode.NONE);

    // The same instance restarts with the consumer protocol.
    const newId = 'newkip848memberidxxxxx';
    const k = await c.send(68, 1, hb(G, newId, 0, { instanceId: 'inst-x', rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }));
    expect(k.errorCode).toBe(ErrorCode.NONE);
    expect(k.memberId).toBe(newId);
    expect(k.memberEpoch).toBe(generation);
    expect(k.assignment).not.toBeNull();
    expect(partitionsOf(k.assignment!.topicPartitions)).toEqual([0, 1]);

    const describe = async () => (await c.send(69, 1, { groupIds: [G], includeAuthorizedOperations: false })).groups[0]!;
    let d = await describe();
    expect(d.errorCode).toBe(ErrorCode.NONE);
    expect(d.groupEpoch).toBe(generation);
    expect(d.assignmentEpoch).toBe(generation);
    expect(d.members.map((m) => [m.memberId, m.instanceId])).toEqual([[newId, 'inst-x']]);
    const m = d.members[0]!;
    expect(m.memberEpoch).toBe(generation);
    expect(m.memberType).toBe(1); // consumer protocol
    expect(m.assignment.topicPartitions.map((t) => [t.topicId, [...t.partitions].sort()])).toEqual([[topicId, [0, 1]]]);
    expect(m.targetAssignment.topicPartitions.map((t) => [t.topicId, [...t.partitions].sort()])).toEqual([[topicId, [0, 1]]]);

    // A later heartbeat keeps them.
    const k2 = await c.send(68, 1, hb(G, newId, k.memberEpoch, { instanceId: 'inst-x', topicPartitions: [{ topicId, partitions: [0, 1] }] }));
    expect(k2.errorCode).toBe(ErrorCode.NONE);
    expect(k2.memberEpoch).toBe(generation);
    d = await describe();
    expect(d.groupState).toBe('Stable');
    expect(d.members.map((x) => [x.memberId, x.instanceId, x.memberEpoch, partitionsOf(x.assignment.topicPartitions), partitionsOf(x.targetAssignment.topicPartitions)])).toEqual([
      [newId, 'inst-x', generation, [0, 1], [0, 1]],
    ]);
  });

  it('writes the replacement records after the conversion records', async () => {
    const policy = 'bidirectional';
    const h = setup({ 'group.initial.rebalance.delay.ms': 0, 'group.consumer.assignment.interval.ms': 0, 'group.consumer.migration.policy': policy });
    const TOPIC = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionCount: 2 };
    const topics = fixedTopics(TOPIC);
    const joined = h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'inst-x', protocols: [{ name: 'range', metadata: subscription(['t']) }] }), classicClient(5));
    await settle();
    h.time.advance(1);
    await settle();
    const j = await joined;
    expect(j.errorCode).toBe(ErrorCode.NONE);
    const sync = await h.coordinator.syncGroup(
      syncRequest({ generationId: j.generationId, memberId: j.memberId, groupInstanceId: 'inst-x', protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: j.memberId, assignment: assignment('t', [0, 1]) }] }),
      classicClient(5),
    );
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    const consumer = consumerCoordinatorFor(h, topics, { 'group.consumer.migration.policy': policy });
    try {
      const before = h.groupLog.records.length;
      const newId = 'newkip848memberidxxxxx';
      const res = await consumer.heartbeat(
        hb('g', newId, 0, { instanceId: 'inst-x', rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }),
        { apiVersion: 1, clientId: 'c', clientHost: '/127.0.0.1' },
      );
      expect(res.errorCode).toBe(ErrorCode.NONE);
      expect(res.memberEpoch).toBe(j.generationId);
      const written = h.groupLog.records.slice(before).map((r) => `${r.kind}:${'memberId' in r ? r.memberId : ''}:${r.value === null ? 'null' : ''}`);
      const old = j.memberId;
      expect(written.slice(0, 12)).toEqual([
        // convertToConsumerGroup
        'group-metadata::null',
        `cg-member-metadata:${old}:`,
        'cg-metadata::',
        `cg-target-member:${old}:`,
        'cg-target-metadata::',
        `cg-current-assignment:${old}:`,
        // replaceMember
        `cg-current-assignment:${old}:null`,
        `cg-target-member:${old}:null`,
        `cg-member-metadata:${old}:null`,
        `cg-member-metadata:${newId}:`,
        `cg-target-member:${newId}:`,
        `cg-current-assignment:${newId}:`,
      ]);
      const target = h.groupLog.records[before + 10]!;
      expect(target.kind === 'cg-target-member' && target.value?.topicPartitions.flatMap((t) => t.partitions)).toEqual([0, 1]);
      const group = consumer.group('g')!;
      expect([...group.members.keys()]).toEqual([newId]);
      expect(group.staticMember('inst-x')?.memberId).toBe(newId);
      expect(h.coordinator.classicGroupStatus('g')).toBe('none');
    } finally {
      consumer.shutdown();
      h.coordinator.shutdown();
    }
  });

  it('group.consumer.max.size: a static member rejoining under a new member id gets GROUP_MAX_SIZE_REACHED', async () => {
    const { server } = await start({ 'group.consumer.max.size': 1 });
    server.broker.topics.create('t', 2);
    const c = await client(server);
    const G = 'max-static';
    const join = (memberId: string) => hb(G, memberId, 0, { instanceId: 'i', rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] });
    const a = await c.send(68, 1, join('staticmemberaaaaaaaaaa'));
    expect(a.errorCode).toBe(ErrorCode.NONE);
    const left = await c.send(68, 1, hb(G, 'staticmemberaaaaaaaaaa', -2, { instanceId: 'i' }));
    expect(left.errorCode).toBe(ErrorCode.NONE);
    const b = await c.send(68, 1, join('staticmemberbbbbbbbbbb'));
    expect(b.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect(ErrorCode.GROUP_MAX_SIZE_REACHED).toBe(81);
    // The member that left with -2 still holds the instance: it can come back under its own id.
    const again = await c.send(68, 1, join('staticmemberaaaaaaaaaa'));
    expect(again.errorCode).toBe(ErrorCode.NONE);
  });
});
