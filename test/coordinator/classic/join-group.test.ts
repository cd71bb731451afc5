import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { setConnectionsArriving, setReceivedRequestsQueue } from '../../../src/util/received-requests.js';
import { systemTime } from '../../../src/util/time.js';
import { client, heartbeatRequest, joinRequest, settle, setup, startDynamicJoin, track, SESSION_MS } from './harness.js';

describe('ClassicGroupCoordinator.joinGroup', () => {
  it('runs the v4+ two-phase join: MEMBER_ID_REQUIRED with clientId-UUID, then the rejoin is added', async () => {
    const h = setup();
    const first = await h.coordinator.joinGroup(joinRequest(), client(5, 'client-1'));
    expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(first.memberId).toMatch(/^client-1-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(h.coordinator.group('g')!.numMembers).toBe(0);

    const second = track(h.coordinator.joinGroup(joinRequest({ memberId: first.memberId }), client(5, 'client-1')));
    await settle();
    expect(second.done).toBe(false); // parked until the initial rebalance delay (0 ms here) runs out
    expect(h.coordinator.group('g')!.state).toBe('PreparingRebalance');

    h.time.advance(0);
    await settle();
    expect(second.value).toMatchObject({
      errorCode: ErrorCode.NONE,
      generationId: 1,
      protocolType: 'consumer',
      protocolName: 'range',
      leader: first.memberId,
      memberId: first.memberId,
      members: [{ memberId: first.memberId, groupInstanceId: null, metadata: Buffer.from('sub-range') }],
    });
    expect(h.coordinator.group('g')!.state).toBe('CompletingRebalance');
  });

  it('with an initial delay of 0, every member that joins before the timer fires is in generation 1 (Kafka: a CoordinatorTimer of 0 ms)', async () => {
    const h = setup();
    const ids = [];
    for (const c of ['client-1', 'client-2', 'client-3']) ids.push((await h.coordinator.joinGroup(joinRequest(), client(5, c))).memberId);
    const joins = ids.map((memberId, i) => track(h.coordinator.joinGroup(joinRequest({ memberId }), client(5, `client-${i + 1}`))));
    await settle();
    expect(joins.map((j) => j.done)).toEqual([false, false, false]);
    h.time.advance(0);
    await settle();
    expect(joins.map((j) => [j.value?.errorCode, j.value?.generationId])).toEqual([
      [ErrorCode.NONE, 1],
      [ErrorCode.NONE, 1],
      [ErrorCode.NONE, 1],
    ]);
    expect(joins[0]!.value!.members.map((m) => m.memberId)).toEqual(ids);
  });

  it('runs the 0 ms initial-rebalance timer behind the JoinGroups already read, so they are in generation 1 (Kafka queues a timer event behind them)', async () => {
    const h = setup();
    const read: Array<() => void> = [];
    setReceivedRequestsQueue((fn) => read.push(fn));
    try {
      const ids = [];
      for (const c of ['client-1', 'client-2']) ids.push((await h.coordinator.joinGroup(joinRequest(), client(5, c))).memberId);
      const first = track(h.coordinator.joinGroup(joinRequest({ memberId: ids[0] }), client(5, 'client-1')));
      h.time.advance(0); // the timer expires while the second member's rejoin waits, read but not handled
      expect(read).toHaveLength(1);
      const second = track(h.coordinator.joinGroup(joinRequest({ memberId: ids[1] }), client(5, 'client-2')));
      read.shift()!(); // the timer's operation, behind that rejoin: a member was added, so the delay starts again
      await settle();
      expect([first.done, second.done]).toEqual([false, false]);
      h.time.advance(0);
      read.shift()!();
      await settle();
      expect([first.value?.generationId, second.value?.generationId]).toEqual([1, 1]);
      expect(first.value!.members.map((m) => m.memberId)).toEqual(ids);
      expect(read).toHaveLength(0);
    } finally {
      setReceivedRequestsQueue((fn) => fn());
    }
  });

  it('on the system clock, keeps a first generation open while connections are still being accepted, whose JoinGroups Kafka would have read by then', async () => {
    const h = setup({}, systemTime);
    let arriving = true;
    let asked = 0;
    let askedAgain: () => void = () => {};
    setConnectionsArriving((quietMs) => {
      expect(quietMs).toBe(20);
      asked++;
      askedAgain();
      return arriving;
    });
    const asks = (n: number) => new Promise<void>((resolve) => (askedAgain = () => asked >= n && resolve()));
    try {
      const first = (await h.coordinator.joinGroup(joinRequest(), client(5, 'client-1'))).memberId;
      const onePromise = h.coordinator.joinGroup(joinRequest({ memberId: first }), client(5, 'client-1'));
      const one = track(onePromise);
      // The 0 ms timer keeps finding connections arriving: the generation stays open.
      await asks(3);
      expect(one.done).toBe(false);
      // The connection accepted meanwhile joins; then no more arrive, and both are in generation 1.
      const second = (await h.coordinator.joinGroup(joinRequest(), client(5, 'client-2'))).memberId;
      const two = h.coordinator.joinGroup(joinRequest({ memberId: second }), client(5, 'client-2'));
      arriving = false;
      const [a, b] = await Promise.all([onePromise, two]);
      expect([a.errorCode, a.generationId, b.errorCode, b.generationId]).toEqual([ErrorCode.NONE, 1, ErrorCode.NONE, 1]);
      expect(a.members.map((m) => m.memberId)).toEqual([first, second]);
    } finally {
      setConnectionsArriving(() => false);
    }
  });

  it('skips a timer operation whose timer was replaced while it waited behind the requests already read', async () => {
    const h = setup();
    const read: Array<() => void> = [];
    setReceivedRequestsQueue((fn) => read.push(fn));
    try {
      const { memberId } = await startDynamicJoin(h, 'client-1');
      h.time.advance(0);
      read.shift()!(); // generation 1 completes; the member's session timer starts
      await settle();
      h.time.advance(SESSION_MS); // its session expires, but the operation waits behind a heartbeat already read
      expect(read).toHaveLength(1);
      expect(await h.coordinator.heartbeat(heartbeatRequest({ memberId, generationId: 1 }))).toMatchObject({ errorCode: ErrorCode.NONE });
      read.shift()!();
      expect(h.coordinator.group('g')!.hasMember(memberId)).toBe(true);
    } finally {
      setReceivedRequestsQueue((fn) => fn());
    }
  });

  it('writes an empty GroupMetadata record (generation 0, type "") when a join creates the group', async () => {
    const h = setup();
    await h.coordinator.joinGroup(joinRequest(), client(5));
    expect(h.groupLog.groupMetadata('g')).toEqual([
      { protocolType: '', generation: 0, protocol: null, leader: null, currentStateTimestamp: BigInt(h.time.now()), members: [] },
    ]);
  });

  it('adds v0-3 members at once (no MEMBER_ID_REQUIRED) and uses the session timeout as rebalance timeout for v0', async () => {
    const h = setup();
    const joined = track(h.coordinator.joinGroup(joinRequest({ rebalanceTimeoutMs: -1 }), client(0, 'old-client')));
    await settle();
    const member = h.coordinator.group('g')!.allMembers()[0]!;
    expect(member.memberId).toMatch(/^old-client-/);
    expect(member.rebalanceTimeoutMs).toBe(SESSION_MS);
    h.time.advance(0);
    await settle();
    expect(joined.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, memberId: member.memberId });
  });

  it('rejects an empty group id and session timeouts outside the configured bounds', async () => {
    const h = setup({ 'group.min.session.timeout.ms': 6000, 'group.max.session.timeout.ms': 60000 });
    expect((await h.coordinator.joinGroup(joinRequest({ groupId: '' }), client())).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    expect((await h.coordinator.joinGroup(joinRequest({ sessionTimeoutMs: 5999 }), client())).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect((await h.coordinator.joinGroup(joinRequest({ sessionTimeoutMs: 60001 }), client())).errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
    expect(h.coordinator.group('g')).toBeUndefined();
  });

  it("answers a JoinGroup without waiting for other groups' writes in flight (Kafka completes it within the operation)", async () => {
    const h = setup();
    const creator = await h.coordinator.joinGroup(joinRequest(), client(5, 'client-1'));
    const release = h.groupLog.holdAppends();
    const other = track(h.coordinator.joinGroup(joinRequest({ groupId: 'other' }), client(5, 'client-9')));
    const second = track(h.coordinator.joinGroup(joinRequest(), client(5, 'client-2')));
    await settle();
    expect(other.done).toBe(false); // its group's creation record is still in flight
    expect(second.value).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: expect.stringMatching(/^client-2-/) });

    const rejoin = track(h.coordinator.joinGroup(joinRequest({ memberId: creator.memberId }), client(5, 'client-1')));
    h.time.advance(0);
    await settle();
    expect(rejoin.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, leader: creator.memberId });
    expect(other.done).toBe(false);
    release();
    await settle();
    expect(other.value).toMatchObject({ errorCode: ErrorCode.MEMBER_ID_REQUIRED, memberId: expect.stringMatching(/^client-9-/) });
  });

  it('answers UNKNOWN_MEMBER_ID to a member id for a group that does not exist', async () => {
    const h = setup();
    const res = await h.coordinator.joinGroup(joinRequest({ memberId: 'ghost' }), client());
    expect(res).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, memberId: 'ghost' });
    expect(h.coordinator.group('g')).toBeUndefined();
  });

  it('refuses a member whose protocol type or protocols do not fit the group (INCONSISTENT_GROUP_PROTOCOL)', async () => {
    const h = setup();
    const a = await startDynamicJoin(h, 'a');
    const wrongType = await h.coordinator.joinGroup(joinRequest({ protocolType: 'connect' }), client(5, 'b'));
    expect(wrongType.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const noCommon = await h.coordinator.joinGroup(joinRequest({ protocols: [{ name: 'roundrobin', metadata: Buffer.from('x') }] }), client(5, 'b'));
    expect(noCommon.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const emptyType = await h.coordinator.joinGroup(joinRequest({ groupId: 'other', protocolType: '' }), client(5, 'b'));
    expect(emptyType.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    h.time.advance(0);
    expect((await a.joined).errorCode).toBe(ErrorCode.NONE);
  });

  it('answers GROUP_MAX_SIZE_REACHED once group.max.size members are parked in the join phase', async () => {
    const h = setup({ 'group.max.size': 1 });
    const a = await startDynamicJoin(h, 'a');
    await settle();
    const b = await h.coordinator.joinGroup(joinRequest(), client(5, 'b'));
    expect(b).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: '' });
    h.time.advance(0);
    expect((await a.joined).errorCode).toBe(ErrorCode.NONE);
    expect(h.coordinator.group('g')!.numMembers).toBe(1);
  });

  it('selects the protocol by vote among those every member supports', async () => {
    const h = setup({ 'group.initial.rebalance.delay.ms': 100 });
    const both = [
      { name: 'roundrobin', metadata: Buffer.from('rr') },
      { name: 'range', metadata: Buffer.from('r') },
    ];
    const a = await startDynamicJoin(h, 'a', { protocols: both });
    const b = await startDynamicJoin(h, 'b', { protocols: [both[1]!, both[0]!] });
    const c = await startDynamicJoin(h, 'c', { protocols: [both[1]!] });
    // b and c joined during the first delay, so the initial rebalance waits one more delay.
    h.time.advance(200);
    // roundrobin is not supported by c, so every vote goes to range.
    expect((await a.joined).protocolName).toBe('range');
    expect((await b.joined).protocolName).toBe('range');
    expect((await c.joined).protocolName).toBe('range');
  });

  it('extends group.initial.rebalance.delay.ms while new members keep joining, up to the rebalance timeout', async () => {
    const h = setup({ 'group.initial.rebalance.delay.ms': 3000 });
    const a = track((await startDynamicJoin(h, 'a', { rebalanceTimeoutMs: 10_000 })).joined);
    h.time.advance(2000);
    const b = track((await startDynamicJoin(h, 'b', { rebalanceTimeoutMs: 10_000 })).joined);
    h.time.advance(1000); // first delay ends; b joined during it, so another delay starts
    await settle();
    expect(a.done).toBe(false);
    h.time.advance(3000);
    await settle();
    expect(a.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1 });
    expect(b.value).toMatchObject({ errorCode: ErrorCode.NONE, generationId: 1, members: [] });
    expect(a.value!.members.map((m) => m.memberId)).toHaveLength(2);
  });

  it('logs every state change at info with group id, from, to and generation', async () => {
    const h = setup();
    const a = await startDynamicJoin(h, 'a');
    h.time.advance(0);
    await a.joined;
    const changes = h.logLines.filter((l) => l.msg === 'classic group state change').map((l) => [l.groupId, l.from, l.to, l.generationId, l.level]);
    expect(changes).toEqual([
      ['g', 'Empty', 'PreparingRebalance', 0, 30],
      ['g', 'PreparingRebalance', 'CompletingRebalance', 1, 30],
    ]);
  });

  it('drops a pending member id whose second join never comes, after its session timeout', async () => {
    const h = setup();
    const first = await h.coordinator.joinGroup(joinRequest(), client(5));
    expect(h.coordinator.group('g')!.isPendingMember(first.memberId)).toBe(true);
    h.time.advance(SESSION_MS);
    expect(h.coordinator.group('g')!.isPendingMember(first.memberId)).toBe(false);
    const late = await h.coordinator.joinGroup(joinRequest({ memberId: first.memberId }), client(5));
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});
