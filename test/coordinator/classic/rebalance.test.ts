import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { client, heartbeatRequest, joinRequest, settle, setup, stableSingleMember, startDynamicJoin, syncRequest, track, REBALANCE_MS, SESSION_MS } from './harness.js';

/** Two members, A (leader, Stable at generation 1) then B, rebalanced into generation 2. */
async function twoMembersJoined() {
  const h = setup();
  const a = await stableSingleMember(h, 'client-a', Buffer.from('a-gen1'));
  const b = await startDynamicJoin(h, 'client-b');
  await settle();
  const joinA = h.coordinator.joinGroup(joinRequest({ memberId: a }), client(5, 'client-a'));
  const [ja, jb] = await Promise.all([joinA, b.joined]);
  return { h, a, b: b.memberId, ja, jb };
}

describe('classic group rebalance with two members', () => {
  it('moves a Stable group to PreparingRebalance when a member joins and tells the old member via Heartbeat', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'client-a');
    expect(h.coordinator.group('g')!.state).toBe('Stable');
    const b = track((await startDynamicJoin(h, 'client-b')).joined);
    await settle();
    expect(h.coordinator.group('g')!.state).toBe('PreparingRebalance');
    expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: a, generationId: 1 }))).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(b.done).toBe(false); // waits for A to rejoin
  });

  it('completes the join once every member rejoined: generation 2, only the leader gets the member list', async () => {
    const { h, a, b, ja, jb } = await twoMembersJoined();
    expect(ja).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2, leader: a, memberId: a, protocolName: 'range' });
    expect(ja.members.map((m) => m.memberId)).toEqual([a, b]);
    expect(jb).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2, leader: a, memberId: b, members: [] });
    expect(h.coordinator.group('g')!.state).toBe('CompletingRebalance');
  });

  it('parks the follower SyncGroup until the leader sends assignments, then answers both with their own', async () => {
    const { h, a, b } = await twoMembersJoined();
    const follower = track(h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 }));
    await settle();
    expect(follower.done).toBe(false);
    expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: b, generationId: 2 }))).errorCode).toBe(ErrorCode.NONE);

    const leader = await h.coordinator.syncGroup(
      syncRequest({ memberId: a, generationId: 2, assignments: [{ memberId: a, assignment: Buffer.from('for-a') }, { memberId: b, assignment: Buffer.from('for-b') }] }),
      { apiVersion: 3 },
    );
    await settle();
    expect(leader).toMatchObject({ errorCode: ErrorCode.NONE, assignment: Buffer.from('for-a'), protocolType: 'consumer', protocolName: 'range' });
    expect(follower.value).toMatchObject({ errorCode: ErrorCode.NONE, assignment: Buffer.from('for-b') });
    expect(h.coordinator.group('g')!.state).toBe('Stable');
  });

  it('writes GroupMetadata with generation 2, both members and their assignments on the leader SyncGroup', async () => {
    const { h, a, b } = await twoMembersJoined();
    const follower = h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 });
    await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 2, assignments: [{ memberId: a, assignment: Buffer.from('for-a') }] }), { apiVersion: 3 });
    expect((await follower).assignment).toEqual(Buffer.alloc(0)); // the leader left b out: empty assignment
    const last = h.groupLog.groupMetadata('g').at(-1)!;
    expect(last).toMatchObject({ protocolType: 'consumer', generation: 2, protocol: 'range', leader: a });
    expect(last.members.map((m) => [m.memberId, m.clientId, m.clientHost, m.sessionTimeout, m.rebalanceTimeout, m.subscription.toString(), m.assignment.toString()])).toEqual([
      [a, 'client-a', '/127.0.0.1', SESSION_MS, REBALANCE_MS, 'sub-range', 'for-a'],
      [b, 'client-b', '/127.0.0.1', SESSION_MS, REBALANCE_MS, 'sub-range', ''],
    ]);
  });

  it('answers a Stable SyncGroup with the stored assignment and sync errors with Kafka codes', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'client-a', Buffer.from('mine'));
    expect(await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 1 }), { apiVersion: 3 })).toMatchObject({ errorCode: ErrorCode.NONE, assignment: Buffer.from('mine') });
    expect((await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 7 }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await h.coordinator.syncGroup(syncRequest({ memberId: 'nobody', generationId: 1 }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.coordinator.syncGroup(syncRequest({ groupId: 'missing', memberId: a }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 1, protocolType: 'consumer', protocolName: 'roundrobin' }), { apiVersion: 5 })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 1 }), { apiVersion: 5 })).errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.coordinator.syncGroup(syncRequest({ groupId: '' }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('answers a parked SyncGroup with REBALANCE_IN_PROGRESS when a new member starts another rebalance', async () => {
    const { h, b } = await twoMembersJoined();
    const follower = track(h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 }));
    await startDynamicJoin(h, 'client-c');
    await settle();
    expect(follower.value).toMatchObject({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS });
    expect((await h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('answers the leader write failure with NOT_COORDINATOR and rebalances', async () => {
    const { h, a, b } = await twoMembersJoined();
    const follower = h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 });
    h.groupLog.failNextAppend();
    const leader = await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 2, assignments: [] }), { apiVersion: 3 });
    expect(leader.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await follower).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(h.coordinator.group('g')!.state).toBe('PreparingRebalance');
  });

  it('removes members that never send SyncGroup within the rebalance timeout and rebalances', async () => {
    // Sessions longer than the rebalance timeout, so only the sync deadline can remove b.
    const h = setup();
    const long = { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: REBALANCE_MS };
    const a = await startDynamicJoin(h, 'client-a', long);
    const b = await startDynamicJoin(h, 'client-b', long);
    h.time.advance(0);
    const ja = await a.joined;
    await b.joined;
    await h.coordinator.syncGroup(syncRequest({ memberId: a.memberId, generationId: ja.generationId }), { apiVersion: 3 });
    expect(h.coordinator.group('g')!.state).toBe('Stable');
    h.time.advance(REBALANCE_MS - 1);
    expect(h.coordinator.group('g')!.hasMember(b.memberId)).toBe(true);
    h.time.advance(1);
    const group = h.coordinator.group('g')!;
    expect(group.hasMember(b.memberId)).toBe(false);
    expect(group.hasMember(a.memberId)).toBe(true);
    expect(group.state).toBe('PreparingRebalance');
  });
});

describe('heartbeat errors', () => {
  it('returns UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, INVALID_GROUP_ID and NONE as Kafka does', async () => {
    const h = setup();
    const a = await stableSingleMember(h);
    const hb = async (over: Parameters<typeof heartbeatRequest>[0]) => (await h.coordinator.heartbeat(heartbeatRequest(over))).errorCode;
    expect(await hb({ memberId: a, generationId: 1 })).toBe(ErrorCode.NONE);
    expect(await hb({ groupId: 'missing', memberId: a })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await hb({ memberId: 'stranger', generationId: 1 })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await hb({ memberId: a, generationId: 0 })).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(await hb({ memberId: a, generationId: 1, groupInstanceId: 'not-registered' })).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await hb({ groupId: '', memberId: a })).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('keeps a heartbeating member alive past its session timeout', async () => {
    const h = setup();
    const a = await stableSingleMember(h);
    for (let i = 0; i < 5; i++) {
      h.time.advance(SESSION_MS - 1);
      expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: a, generationId: 1 }))).errorCode).toBe(ErrorCode.NONE);
    }
    expect(h.coordinator.group('g')!.state).toBe('Stable');
  });
});

describe('session expiry', () => {
  it('removes a silent member, rebalances, and the survivor gets the next generation alone', async () => {
    const { h, a, b } = await twoMembersJoined();
    const followerSync = h.coordinator.syncGroup(syncRequest({ memberId: b, generationId: 2 }), { apiVersion: 3 });
    await h.coordinator.syncGroup(syncRequest({ memberId: a, generationId: 2, assignments: [] }), { apiVersion: 3 });
    await followerSync;
    // b heartbeats, a goes silent.
    h.time.advance(SESSION_MS - 1);
    expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: b, generationId: 2 }))).errorCode).toBe(ErrorCode.NONE);
    h.time.advance(1);
    const group = h.coordinator.group('g')!;
    expect(group.hasMember(a)).toBe(false);
    expect(group.state).toBe('PreparingRebalance');
    expect(group.leaderId).toBe(b);
    expect((await h.coordinator.heartbeat(heartbeatRequest({ memberId: b, generationId: 2 }))).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await h.coordinator.joinGroup(joinRequest({ memberId: b }), client(5, 'client-b'));
    expect(rejoin).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 3, leader: b });
    expect(rejoin.members.map((m) => m.memberId)).toEqual([b]);
  });

  it('turns the group Empty and writes GroupMetadata without members when the last member expires', async () => {
    const h = setup();
    await stableSingleMember(h);
    h.time.advance(SESSION_MS); // expiry -> PreparingRebalance; nobody left -> join completes at once
    await settle();
    const group = h.coordinator.group('g')!;
    expect(group.state).toBe('Empty');
    expect(group.generationId).toBe(2);
    expect(h.groupLog.groupMetadata('g').at(-1)).toMatchObject({ generation: 2, protocol: null, protocolType: 'consumer', members: [] });
  });

  it('drops a dynamic member that does not rejoin within the rebalance timeout', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'client-a');
    const b = await startDynamicJoin(h, 'client-b');
    // a keeps heartbeating (REBALANCE_IN_PROGRESS) but never rejoins.
    for (let t = 0; t < REBALANCE_MS; t += 5000) {
      h.time.advance(5000);
      await h.coordinator.heartbeat(heartbeatRequest({ memberId: a, generationId: 1 }));
    }
    const jb = await b.joined;
    expect(jb).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2, leader: b.memberId });
    expect(h.coordinator.group('g')!.hasMember(a)).toBe(false);
  });
});
