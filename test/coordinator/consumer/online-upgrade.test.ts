import { describe, expect, it } from 'vitest';
import { Writer } from '../../../src/protocol/primitives.js';
import * as Sub from '../../../src/records/schemas/ConsumerProtocolSubscription.js';
import * as Asg from '../../../src/records/schemas/ConsumerProtocolAssignment.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { setup, joinRequest, syncRequest, settle, client, consumerCoordinatorFor, fixedTopics } from '../classic/harness.js';

const TOPIC = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitionCount: 4 };
const topics = fixedTopics(TOPIC);

function bytes(encode: (w: Writer) => void): Buffer {
  const w = new Writer();
  encode(w);
  return w.finish();
}
const subscription = bytes((w) => { w.int16(0); Sub.encode(w, 0, { topics: ['t'], userData: null, ownedPartitions: [], generationId: -1, rackId: null }); });
const assignment = bytes((w) => { w.int16(0); Asg.encode(w, 0, { assignedPartitions: [{ topic: 't', partitions: [0, 1, 2, 3] }], userData: null }); });

async function classicGroupWithOneMember(policy = 'bidirectional', memberAssignment = assignment) {
  const h = setup({ 'group.initial.rebalance.delay.ms': 0, 'group.consumer.assignment.interval.ms': 0, 'group.consumer.migration.policy': policy });
  const joined = h.coordinator.joinGroup(joinRequest({ protocols: [{ name: 'range', metadata: subscription }] }), client(3));
  await settle();
  h.time.advance(1);
  await settle();
  const j = await joined;
  expect(j.errorCode).toBe(ErrorCode.NONE);
  const s = await h.coordinator.syncGroup(syncRequest({ generationId: j.generationId, memberId: j.memberId, assignments: [{ memberId: j.memberId, assignment: memberAssignment }] }), client(3));
  expect(s.errorCode).toBe(ErrorCode.NONE);
  const consumer = consumerCoordinatorFor(h, topics, { 'group.consumer.migration.policy': policy });
  return { h, consumer, classicMemberId: j.memberId, generation: j.generationId };
}

const hb = { groupId: 'g', memberId: 'new-member-aaaaaaaaaaa', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [] };

describe('online upgrade of a non-empty classic group', () => {
  it('tombstones the classic group and writes 5, 3, 7, 6, 8 for the classic members before the new member joins', async () => {
    const { h, consumer, classicMemberId, generation } = await classicGroupWithOneMember();
    const before = h.groupLog.records.length;
    const res = await consumer.heartbeat(hb, { apiVersion: 1, clientId: 'c', clientHost: '/127.0.0.1' });
    expect(res.errorCode).toBe(ErrorCode.NONE);
    const written = h.groupLog.records.slice(before).map((r) => `${r.kind}:${'memberId' in r ? r.memberId : ''}:${r.value === null ? 'null' : ''}`);
    expect(written.slice(0, 6)).toEqual([
      'group-metadata::null',
      `cg-member-metadata:${classicMemberId}:`,
      'cg-metadata::',
      `cg-target-member:${classicMemberId}:`,
      'cg-target-metadata::',
      `cg-current-assignment:${classicMemberId}:`,
    ]);
    const converted = h.groupLog.records.slice(before, before + 6);
    const mm = converted[1]!;
    expect(mm.kind === 'cg-member-metadata' && mm.value?.classicMemberMetadata?.sessionTimeoutMs).toBe(10_000);
    const epoch = converted[2]!;
    expect(epoch.kind === 'cg-metadata' && epoch.value?.epoch).toBe(generation);
    const tm = converted[4]!;
    expect(tm.kind === 'cg-target-metadata' && tm.value).toEqual({ assignmentEpoch: generation, assignmentTimestamp: 0n });
    const ca = converted[5]!;
    expect(ca.kind === 'cg-current-assignment' && ca.value?.memberEpoch).toBe(generation);
    expect(ca.kind === 'cg-current-assignment' && ca.value?.assignedPartitions.flatMap((t) => t.partitions)).toEqual([0, 1, 2, 3]);
    // Then the new member: its record 5, the epoch bump, the new target.
    expect(written.slice(6, 8)).toEqual(['cg-member-metadata:new-member-aaaaaaaaaaa:', 'cg-metadata::']);
    expect(h.coordinator.classicGroupStatus('g')).toBe('none');
    const group = consumer.group('g')!;
    expect(group.groupEpoch).toBe(generation + 1);
    // The classic member must rejoin; its rejoin (owning nothing, eager) moves it to the new epoch.
    expect(consumer.classicHeartbeat({ groupId: 'g', generationId: generation, memberId: classicMemberId, groupInstanceId: null })).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await consumer.classicJoin(joinRequest({ memberId: classicMemberId, protocols: [{ name: 'range', metadata: subscription }] }), client(5));
    expect(rejoin.errorCode).toBe(ErrorCode.NONE);
    expect(rejoin.generationId).toBe(generation + 1);
    const sync = await consumer.classicSync(syncRequest({ generationId: rejoin.generationId, memberId: classicMemberId, protocolType: 'consumer', protocolName: 'range' }));
    expect(sync.errorCode).toBe(ErrorCode.NONE);
    const decoded = Asg.decode(new (await import('../../../src/protocol/primitives.js')).Reader(sync.assignment.subarray(2)), 0);
    expect(decoded.assignedPartitions[0]!.partitions.length).toBe(2);
    expect(consumer.classicHeartbeat({ groupId: 'g', generationId: rejoin.generationId, memberId: classicMemberId, groupInstanceId: null })).toBe(ErrorCode.NONE);
    expect(consumer.validateOffsetCommit('g', classicMemberId, rejoin.generationId, 8).errorCode).toBe(ErrorCode.NONE);
    consumer.shutdown();
    h.coordinator.shutdown();
  });

  it('answers GROUP_ID_NOT_FOUND under the downgrade and disabled policies', async () => {
    for (const policy of ['downgrade', 'disabled']) {
      const { h, consumer } = await classicGroupWithOneMember(policy);
      const res = await consumer.heartbeat(hb, { apiVersion: 1, clientId: 'c', clientHost: '/127.0.0.1' });
      expect(res.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
      expect(h.coordinator.classicGroupStatus('g')).toBe('non-empty');
      consumer.shutdown();
      h.coordinator.shutdown();
    }
  });

  // Kafka 4.3.1 (compared on a real broker): a buffer underflow in the embedded protocol is a
  // SchemaException -> GROUP_ID_NOT_FOUND with its message; a bytes length past the end fails in
  // ByteBuffer.limit (IllegalArgumentException) -> UNKNOWN_SERVER_ERROR without a message.
  it('answers a truncated assignment GROUP_ID_NOT_FOUND and one whose userData length runs past the end UNKNOWN_SERVER_ERROR without a message', async () => {
    const truncated = assignment.subarray(0, 2 + 4 + 3 + 4 + 8);
    const userDataPastEnd = Buffer.concat([assignment.subarray(0, assignment.length - 4), Buffer.from([0, 0, 0, 100, 1, 2])]);
    for (const [bytes, errorCode, errorMessage] of [
      [truncated, ErrorCode.GROUP_ID_NOT_FOUND, 'Cannot upgrade classic group g to consumer group because the embedded consumer protocol is malformed.'],
      [userDataPastEnd, ErrorCode.UNKNOWN_SERVER_ERROR, null],
    ] as const) {
      const { h, consumer } = await classicGroupWithOneMember('bidirectional', bytes);
      const res = await consumer.heartbeat(hb, { apiVersion: 1, clientId: 'c', clientHost: '/127.0.0.1' });
      expect({ errorCode: res.errorCode, errorMessage: res.errorMessage }).toEqual({ errorCode, errorMessage });
      expect(h.coordinator.classicGroupStatus('g')).toBe('non-empty');
      consumer.shutdown();
      h.coordinator.shutdown();
    }
  });
});
