import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { client, heartbeatRequest, joinRequest, settle, setup, startDynamicJoin, syncRequest, track, type Harness } from './harness.js';

/** A Stable group: static leader "instance-a" and dynamic follower, generation 1, assignments set. */
async function stableWithStaticLeader(h: Harness) {
  const joinA = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a' }), client(5, 'client-a')));
  await settle();
  const b = await startDynamicJoin(h, 'client-b');
  h.time.advance(0);
  await settle();
  const ja = joinA.value!;
  const jb = await b.joined;
  expect(ja.memberId).toMatch(/^instance-a-/); // static member ids derive from the instance id
  expect(ja.leader).toBe(ja.memberId);
  const followerSync = h.coordinator.syncGroup(syncRequest({ memberId: jb.memberId, generationId: 1 }), { apiVersion: 3 });
  await h.coordinator.syncGroup(
    syncRequest({ memberId: ja.memberId, groupInstanceId: 'instance-a', generationId: 1, assignments: [{ memberId: ja.memberId, assignment: Buffer.from('A') }, { memberId: jb.memberId, assignment: Buffer.from('B') }] }),
    { apiVersion: 3 },
  );
  await followerSync;
  return { a: ja.memberId, b: jb.memberId };
}

describe('static membership', () => {
  it('adds a static member without MEMBER_ID_REQUIRED even on v4+', async () => {
    const h = setup();
    const joined = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'i1' }), client(5)));
    await settle();
    expect(h.coordinator.group('g')!.staticMemberId('i1')).toMatch(/^i1-/);
    h.time.advance(0);
    await settle();
    expect(joined.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1 });
  });

  it('lets a restarted static member rejoin a Stable group without a rebalance and fences the old member id', async () => {
    const h = setup();
    const { a, b } = await stableWithStaticLeader(h);
    const recordsBefore = h.groupLog.groupMetadata('g').length;

    const rejoin = await h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a' }), client(5, 'client-a'));
    const group = h.coordinator.group('g')!;
    expect(rejoin.errorCode).toBe(ErrorCode.NONE);
    expect(rejoin.memberId).not.toBe(a);
    expect(rejoin.generationId).toBe(1); // same generation: no rebalance
    expect(rejoin.leader).toBe(a); // before v9 the previous leader id is returned, so the client does not reassign
    expect(rejoin.members).toEqual([]);
    expect(group.state).toBe('Stable');
    expect(group.leaderId).toBe(rejoin.memberId);
    expect(group.member(rejoin.memberId)!.assignment).toEqual(Buffer.from('A'));

    const records = h.groupLog.groupMetadata('g');
    expect(records).toHaveLength(recordsBefore + 1);
    expect(records.at(-1)!.generation).toBe(1);
    expect(records.at(-1)!.members.map((m) => [m.memberId, m.groupInstanceId, m.assignment.toString()])).toEqual([
      [b, null, 'B'],
      [rejoin.memberId, 'instance-a', 'A'],
    ]);

    const oldHeartbeat = await h.coordinator.heartbeat(heartbeatRequest({ memberId: a, groupInstanceId: 'instance-a', generationId: 1 }));
    expect(oldHeartbeat.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const oldSync = await h.coordinator.syncGroup(syncRequest({ memberId: a, groupInstanceId: 'instance-a', generationId: 1 }), { apiVersion: 3 });
    expect(oldSync.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const oldJoin = await h.coordinator.joinGroup(joinRequest({ memberId: a, groupInstanceId: 'instance-a' }), client(5, 'client-a'));
    expect(oldJoin.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const newHeartbeat = await h.coordinator.heartbeat(heartbeatRequest({ memberId: rejoin.memberId, groupInstanceId: 'instance-a', generationId: 1 }));
    expect(newHeartbeat.errorCode).toBe(ErrorCode.NONE);
  });

  it('gives a v9 static leader the member list with skipAssignment=true on a rejoin without rebalance', async () => {
    const h = setup();
    const { b } = await stableWithStaticLeader(h);
    const rejoin = await h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a' }), client(9, 'client-a'));
    expect(rejoin).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, skipAssignment: true, leader: rejoin.memberId });
    expect(rejoin.members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([
      [b, null],
      [rejoin.memberId, 'instance-a'],
    ]);
  });

  it('rebalances when the restarted static member changes the protocol the group would choose', async () => {
    const h = setup();
    const range = { name: 'range', metadata: Buffer.from('r') };
    const rr = { name: 'roundrobin', metadata: Buffer.from('rr') };
    const a = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a', protocols: [range, rr] }), client(5, 'client-a')));
    await settle();
    const b = await startDynamicJoin(h, 'client-b', { protocols: [rr] });
    h.time.advance(0);
    await settle();
    // b only speaks roundrobin, so it wins; a then prefers range, but the choice still must be roundrobin.
    expect(a.value!.protocolName).toBe('roundrobin');
    await b.joined;
    const group = h.coordinator.group('g')!;
    const syncB = h.coordinator.syncGroup(syncRequest({ memberId: b.memberId, generationId: 1 }), { apiVersion: 3 });
    await h.coordinator.syncGroup(syncRequest({ memberId: a.value!.memberId, generationId: 1 }), { apiVersion: 3 });
    await syncB;
    expect(group.state).toBe('Stable');

    // Same choice after the restart (roundrobin is the only common protocol): no rebalance.
    const same = await h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a', protocols: [rr, range] }), client(5, 'client-a'));
    expect(same.generationId).toBe(1);
    expect(group.state).toBe('Stable');
  });

  it('rebalances when a restarted static member would change the chosen protocol', async () => {
    const h = setup();
    const range = { name: 'range', metadata: Buffer.from('r') };
    const rr = { name: 'roundrobin', metadata: Buffer.from('rr') };
    const a = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a', protocols: [range] }), client(5, 'client-a')));
    await settle();
    h.time.advance(0);
    await settle();
    expect(a.value!.protocolName).toBe('range');
    await h.coordinator.syncGroup(syncRequest({ memberId: a.value!.memberId, generationId: 1 }), { apiVersion: 3 });
    const group = h.coordinator.group('g')!;
    expect(group.state).toBe('Stable');

    const restarted = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'instance-a', protocols: [rr, range] }), client(5, 'client-a')));
    await settle();
    expect(group.state).toBe('CompletingRebalance');
    expect(restarted.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2, protocolName: 'roundrobin' });
  });

  it('keeps a static member that misses the join phase, unlike a dynamic one', async () => {
    const h = setup();
    const { a, b } = await stableWithStaticLeader(h);
    // b rejoins (metadata change forces a rebalance); a stays silent but is static.
    const jb = track(h.coordinator.joinGroup(joinRequest({ memberId: b, protocols: [{ name: 'range', metadata: Buffer.from('new') }] }), client(5, 'client-b')));
    await settle();
    expect(h.coordinator.group('g')!.state).toBe('PreparingRebalance');
    h.time.advance(9_999); // before a's 10 s session runs out, the 30 s rebalance timeout has not passed either
    expect(h.coordinator.group('g')!.hasMember(a)).toBe(true);
    expect(jb.done).toBe(false);
  });

  it('forces a rebalance when a static member rejoins during CompletingRebalance', async () => {
    const h = setup();
    const first = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'i1' }), client(5)));
    await settle();
    h.time.advance(0);
    await settle();
    expect(h.coordinator.group('g')!.state).toBe('CompletingRebalance');
    const again = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'i1' }), client(5)));
    await settle();
    expect(first.value!.errorCode).toBe(ErrorCode.NONE);
    // The swap fences the old id; the new id joins generation 2 once the (non-initial) rebalance completes.
    expect(again.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2 });
  });
});
