import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { LeaveGroupRequest } from '../../../src/protocol/messages/LeaveGroupRequest.js';
import { client, joinRequest, leaveGroupAt, settle, setup, stableSingleMember, startDynamicJoin, syncRequest, track } from './harness.js';

const leave = (over: Partial<LeaveGroupRequest>): LeaveGroupRequest => ({ groupId: 'g', memberId: '', members: [], ...over });

describe('LeaveGroup', () => {
  it('v3+ removes a batch by member id and by group instance id, with per-member errors, then rebalances', async () => {
    const h = setup();
    const s = track(h.coordinator.joinGroup(joinRequest({ groupInstanceId: 'static-1' }), client(5, 'c-static')));
    await settle();
    const d = await startDynamicJoin(h, 'c-dyn');
    const e = await startDynamicJoin(h, 'c-stay');
    h.time.advance(0);
    await settle();
    const staticId = s.value!.memberId;
    const [jd, je] = [await d.joined, await e.joined];
    // Everyone syncs; the static member is the leader.
    const syncs = [jd, je].map((j) => h.coordinator.syncGroup(syncRequest({ memberId: j.memberId, generationId: 1 }), { apiVersion: 3 }));
    await h.coordinator.syncGroup(syncRequest({ memberId: staticId, generationId: 1 }), { apiVersion: 3 });
    await Promise.all(syncs);

    const res = await leaveGroupAt(h.coordinator, 
      leave({
        members: [
          { memberId: d.memberId, groupInstanceId: null, reason: 'shutdown' },
          { memberId: '', groupInstanceId: 'static-1', reason: null },
          { memberId: 'unknown-member', groupInstanceId: null, reason: null },
          { memberId: '', groupInstanceId: 'no-such-instance', reason: null },
          { memberId: e.memberId, groupInstanceId: 'static-1', reason: null },
        ],
      }),
      { apiVersion: 5 },
    );
    expect(res.errorCode).toBe(ErrorCode.NONE);
    expect(res.members).toEqual([
      { memberId: d.memberId, groupInstanceId: null, errorCode: ErrorCode.NONE },
      { memberId: '', groupInstanceId: 'static-1', errorCode: ErrorCode.NONE },
      { memberId: 'unknown-member', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      { memberId: '', groupInstanceId: 'no-such-instance', errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      // static-1 is gone by now, so its instance id is unknown.
      { memberId: e.memberId, groupInstanceId: 'static-1', errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
    ]);
    const group = h.coordinator.group('g')!;
    expect(group.allMembers().map((m) => m.memberId)).toEqual([e.memberId]);
    expect(group.state).toBe('PreparingRebalance');
    expect(group.leaderId).toBe(e.memberId);
  });

  it('v0-2 carry one member id and report its error at the top level', async () => {
    const h = setup();
    const a = await stableSingleMember(h);
    expect(await leaveGroupAt(h.coordinator, leave({ memberId: 'nobody' }), { apiVersion: 1 })).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: [] });
    expect(await leaveGroupAt(h.coordinator, leave({ memberId: a }), { apiVersion: 1 })).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, members: [] });
    // The only member left: the join phase completes with nobody, so the group is Empty at generation 2.
    expect(h.coordinator.group('g')!.state).toBe('Empty');
    expect(h.coordinator.group('g')!.generationId).toBe(2);
    expect(h.groupLog.groupMetadata('g').at(-1)).toMatchObject({ generation: 2, members: [] });
  });

  it('answers an unknown group with UNKNOWN_MEMBER_ID per member, and an empty group id with INVALID_GROUP_ID', async () => {
    const h = setup();
    const res = await leaveGroupAt(h.coordinator, leave({ groupId: 'missing', members: [{ memberId: 'm', groupInstanceId: 'i', reason: null }] }), { apiVersion: 3 });
    expect(res).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, members: [{ memberId: 'm', groupInstanceId: 'i', errorCode: ErrorCode.UNKNOWN_MEMBER_ID }] });
    expect((await leaveGroupAt(h.coordinator, leave({ groupId: 'missing', memberId: 'm' }), { apiVersion: 0 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await leaveGroupAt(h.coordinator, leave({ groupId: '' }), { apiVersion: 3 })).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
  });

  it('drops a pending (MEMBER_ID_REQUIRED) member id', async () => {
    const h = setup();
    const first = await h.coordinator.joinGroup(joinRequest(), client(5));
    const res = await leaveGroupAt(h.coordinator, leave({ members: [{ memberId: first.memberId, groupInstanceId: null, reason: null }] }), { apiVersion: 4 });
    expect(res.members[0]!.errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('g')!.isPendingMember(first.memberId)).toBe(false);
  });

  it('lets the join phase complete when a member that was holding it up leaves', async () => {
    const h = setup();
    const a = await stableSingleMember(h, 'client-a');
    const b = track((await startDynamicJoin(h, 'client-b')).joined);
    await settle();
    expect(b.done).toBe(false);
    await leaveGroupAt(h.coordinator, leave({ members: [{ memberId: a, groupInstanceId: null, reason: null }] }), { apiVersion: 3 });
    await settle();
    expect(b.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 2 });
  });
});
