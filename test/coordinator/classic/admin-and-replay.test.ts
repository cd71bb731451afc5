import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { Writer } from '../../../src/protocol/primitives.js';
import * as Subscription from '../../../src/records/schemas/ConsumerProtocolSubscription.js';
import type { GroupMetadataValue } from '../../../src/records/schemas/GroupMetadataValue.js';
import { client, heartbeatRequest, joinRequest, settle, setup, stableSingleMember, startDynamicJoin, track, SESSION_MS } from './harness.js';

function subscription(topics: string[]): Buffer {
  const w = new Writer();
  w.int16(1);
  Subscription.encode(w, 1, { topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null });
  return Buffer.from(w.finish());
}

function loadedValue(): GroupMetadataValue {
  return {
    protocolType: 'consumer',
    generation: 7,
    protocol: 'range',
    leader: 'm1',
    currentStateTimestamp: 1_600_000_000_000n,
    members: [
      { memberId: 'm1', groupInstanceId: null, clientId: 'c1', clientHost: '/10.0.0.1', rebalanceTimeout: 30000, sessionTimeout: SESSION_MS, subscription: subscription(['orders']), assignment: Buffer.from('x1') },
      { memberId: 'm2', groupInstanceId: 'i2', clientId: 'c2', clientHost: '/10.0.0.2', rebalanceTimeout: -1, sessionTimeout: 20000, subscription: subscription(['payments']), assignment: Buffer.from('x2') },
    ],
  };
}

describe('DescribeGroups', () => {
  it('describes a Stable group with protocol data and member metadata', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'client-a', Buffer.from('assigned'));
    expect(h.coordinator.describeGroups(['g'], 5)).toEqual([
      {
        errorCode: ErrorCode.NONE, errorMessage: null, groupId: 'g', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range',
        members: [{ memberId: a, groupInstanceId: null, clientId: 'client-a', clientHost: '/127.0.0.1', memberMetadata: Buffer.from('sub-range'), memberAssignment: Buffer.from('assigned') }],
        authorizedOperations: -2147483648,
      },
    ]);
  });

  it('omits metadata and protocol outside Stable', async () => {
    const h = setup();
    await stableSingleMember(h, 'client-a', Buffer.from('assigned'));
    await startDynamicJoin(h, 'client-b');
    const [g] = h.coordinator.describeGroups(['g'], 5);
    expect(g).toMatchObject({ groupState: 'PreparingRebalance', protocolData: '' });
    expect(g!.members.map((m) => [m.memberMetadata.length, m.memberAssignment.toString()])).toEqual([[0, 'assigned'], [0, '']]);
  });

  it('answers an unknown group as Dead with NONE up to v5 and GROUP_ID_NOT_FOUND in v6', () => {
    const h = setup();
    expect(h.coordinator.describeGroups(['nope'], 5)[0]).toMatchObject({ errorCode: ErrorCode.NONE, errorMessage: null, groupState: 'Dead', members: [] });
    expect(h.coordinator.describeGroups(['nope'], 6)[0]).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'Group nope not found.', groupState: 'Dead' });
  });
});

describe('ListGroups', () => {
  it('lists every group with its state and type, filtered by state (case-insensitive) and type', async () => {
    const h = setup();
    await stableSingleMember(h);
    h.coordinator.getOrCreateSimpleGroup('simple');
    h.offsets.groups.add('offsets-only');
    expect(await h.coordinator.listGroups()).toEqual([
      { groupId: 'g', protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' },
      { groupId: 'simple', protocolType: '', groupState: 'Empty', groupType: 'classic' },
      { groupId: 'offsets-only', protocolType: '', groupState: 'Empty', groupType: 'classic' },
    ]);
    expect((await h.coordinator.listGroups(['STABLE'])).map((g) => g.groupId)).toEqual(['g']);
    expect((await h.coordinator.listGroups(['empty', 'dead'])).map((g) => g.groupId)).toEqual(['simple', 'offsets-only']);
    expect((await h.coordinator.listGroups([], ['Classic'])).map((g) => g.groupId)).toEqual(['g', 'simple', 'offsets-only']);
    expect(await h.coordinator.listGroups([], ['consumer'])).toEqual([]);
  });
});

describe('groups known only by their offsets', () => {
  it('share their empty member collections until they write: a member joining one group is in that group only', async () => {
    const h = setup();
    const simple = h.coordinator.getOrCreateSimpleGroup('simple');
    const other = h.coordinator.getOrCreateSimpleGroup('other');
    const a = await stableSingleMember(h, 'client-a', Buffer.from('assigned'));
    await startDynamicJoin(h, 'client-b');
    expect(h.coordinator.existingGroup('g')!.numMembers).toBe(2);
    for (const group of [simple, other]) {
      expect([group.numMembers, group.numPendingJoinMembers, group.allMembers(), group.allPendingSyncMembers(), group.hasMember(a)]).toEqual([0, 0, [], [], false]);
    }
    expect(h.coordinator.describeGroups(['simple'], 5)[0]!.members).toEqual([]);
  });
});

describe('DeleteGroups', () => {
  it('deletes Empty groups (offsets and GroupMetadata tombstoned) and refuses others', async () => {
    const h = setup();
    await stableSingleMember(h);
    h.coordinator.getOrCreateSimpleGroup('simple');
    h.offsets.groups.add('simple');
    const results = await h.coordinator.deleteGroups(['g', 'simple', 'missing', '']);
    expect(results).toEqual([
      { groupId: 'g', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'simple', errorCode: ErrorCode.NONE },
      { groupId: 'missing', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
      { groupId: '', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    expect(h.offsets.deleted).toEqual(['simple']);
    expect(h.groupLog.groupMetadata('simple')).toEqual([null]);
    expect(h.coordinator.group('simple')).toBeUndefined();
    expect((await h.coordinator.deleteGroups(['simple']))[0]!.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});

describe('replayGroupMetadata', () => {
  it('loads a group with members as Stable with its generation, leader, assignments and subscriptions', async () => {
    const h = setup();
    h.coordinator.replayGroupMetadata('loaded', loadedValue());
    const group = h.coordinator.group('loaded')!;
    expect(group.state).toBe('Stable');
    expect(group.generationId).toBe(7);
    expect(group.leaderId).toBe('m1');
    expect(group.protocolName).toBe('range');
    expect(group.currentStateTimestamp).toBe(1_600_000_000_000);
    expect(group.member('m2')!.rebalanceTimeoutMs).toBe(20000); // -1 (pre-v1 record) falls back to the session timeout
    expect(group.staticMemberId('i2')).toBe('m2');
    expect(group.isSubscribedToTopic('orders')).toBe(true);
    expect(group.isSubscribedToTopic('payments')).toBe(true);
    expect(group.isSubscribedToTopic('other')).toBe(false);
    expect((await h.coordinator.heartbeat(heartbeatRequest({ groupId: 'loaded', memberId: 'm1', generationId: 7 }))).errorCode).toBe(ErrorCode.NONE);
  });

  it('starts member sessions at load, so silent members expire and the group ends Empty', async () => {
    const h = setup();
    h.coordinator.replayGroupMetadata('loaded', loadedValue());
    h.time.advance(SESSION_MS); // m1 expires -> rebalance; m2 (static) does not rejoin either
    h.time.advance(20000);
    await settle();
    const group = h.coordinator.group('loaded')!;
    expect(group.numMembers).toBe(0);
    expect(group.state).toBe('Empty');
    expect(h.groupLog.groupMetadata('loaded').at(-1)).toMatchObject({ generation: 8, members: [] });
  });

  it('loads a group without members as Empty, and a tombstone removes it', () => {
    const h = setup();
    h.coordinator.replayGroupMetadata('e', { ...loadedValue(), members: [], protocol: null, leader: null });
    expect(h.coordinator.group('e')).toMatchObject({ state: 'Empty', generationId: 7, protocolType: 'consumer' });
    h.coordinator.replayGroupMetadata('e', null);
    expect(h.coordinator.group('e')).toBeUndefined();
  });
});

describe('shutdown', () => {
  it('cancels every timer and answers parked joins with NOT_COORDINATOR', async () => {
    const h = setup({ 'group.initial.rebalance.delay.ms': 3000 });
    const parked = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'i' }), client(5)));
    await settle();
    expect(h.time.pendingTimers()).toBeGreaterThan(0);
    h.coordinator.shutdown();
    await settle();
    expect(h.time.pendingTimers()).toBe(0);
    expect(parked.value).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
  });
});
