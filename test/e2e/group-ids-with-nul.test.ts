/**
 * Group ids are any non-empty string (Kafka accepts NUL in them): deleting group "a" must not stop
 * the timers of group "a\0x" (adversarial trial 13: the classic member of "a\0x" never expired
 * after "a" was deleted, because both groups' timer keys started with "a\0"). One case per group
 * type, over real sockets on the manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { FakeTime } from '../support/fake-time.js';
import { hb as consumerHb } from '../support/kip848-group.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const NUL_GROUP = 'a\u0000x';
const CONFIG = {
  'group.initial.rebalance.delay.ms': 0,
  'group.consumer.session.timeout.ms': 45000,
  'group.consumer.heartbeat.interval.ms': 5000,
  'group.consumer.assignment.interval.ms': 0,
  'group.share.session.timeout.ms': 45000,
  'group.share.heartbeat.interval.ms': 5000,
  'group.share.assignment.interval.ms': 0,
};
const SIXTY_SECONDS = 60_000;

describe('group ids holding NUL: one group never cancels the timers of another', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function start() {
    const time = new FakeTime(Date.now());
    const { server } = await startClosableServer(cleanups, { config: CONFIG, time }, 'kmc-nul-group-');
    server.broker.topics.create('t', 1);
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    return { server, time, c };
  }

  const deleteGroup = async (c: RawClient, groupId: string) => (await c.send(42, 2, { groupsNames: [groupId] })).results;

  it('classic: deleting group "a" leaves the session timer of "a\\0x" running', async () => {
    const { server, time, c } = await start();
    const join = (memberId: string) =>
      c.send(11, 5, {
        groupId: NUL_GROUP, sessionTimeoutMs: 6000, rebalanceTimeoutMs: 6000, memberId, groupInstanceId: null, protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
      });
    const required = await join('');
    expect(required.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    // The first join phase waits for `group.initial.rebalance.delay.ms` (0) on the manual clock:
    // once the server has read the JoinGroup (the group is preparing its rebalance), let it end.
    const joining = join(required.memberId);
    while (server.broker.classic.group(NUL_GROUP)?.state !== 'PreparingRebalance') await new Promise((resolve) => setImmediate(resolve));
    time.advance(0);
    const joined = await joining;
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const sync = await c.send(14, 5, {
      groupId: NUL_GROUP, generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null,
      protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }],
    });
    expect(sync.errorCode).toBe(ErrorCode.NONE);

    // Group "a": a simple group holding one offset, then deleted.
    const commit = await c.send(8, 8, {
      groupId: 'a', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: '' }] }],
    } as never);
    expect(commit.topics[0]!.partitions).toEqual([{ partitionIndex: 0, errorCode: 0 }]);
    expect(await deleteGroup(c, 'a')).toEqual([{ groupId: 'a', errorCode: 0 }]);

    const describe = async () => (await c.send(15, 5, { groups: [NUL_GROUP], includeAuthorizedOperations: false })).groups[0]!;
    expect([(await describe()).groupState, (await describe()).members.map((m) => m.memberId)]).toEqual(['Stable', [joined.memberId]]);
    time.advance(SIXTY_SECONDS);
    await server.broker.runtime.flush();
    const after = await describe();
    expect([after.groupId, after.groupState, after.members]).toEqual([NUL_GROUP, 'Empty', []]);
  });

  it('consumer (KIP-848): deleting group "a" leaves the session timer of "a\\0x" running', async () => {
    const { server, time, c } = await start();
    const member = randomUUID();
    const joined = await c.send(68, 1, consumerHb(NUL_GROUP, member, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }));
    expect([joined.errorCode, joined.memberEpoch]).toEqual([ErrorCode.NONE, 2]);

    // Group "a": a consumer group whose only member left, then deleted.
    const other = randomUUID();
    expect((await c.send(68, 1, consumerHb('a', other, 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }))).errorCode).toBe(0);
    expect((await c.send(68, 1, consumerHb('a', other, -1))).errorCode).toBe(0);
    expect(await deleteGroup(c, 'a')).toEqual([{ groupId: 'a', errorCode: 0 }]);

    const describe = async () => (await c.send(69, 1, { groupIds: [NUL_GROUP], includeAuthorizedOperations: false })).groups[0]!;
    expect((await describe()).members.map((m) => m.memberId)).toEqual([member]);
    time.advance(SIXTY_SECONDS);
    await server.broker.runtime.flush();
    const after = await describe();
    expect([after.groupId, after.groupState, after.members]).toEqual([NUL_GROUP, 'Empty', []]);
  });

  it('share: deleting group "a" leaves the session timer of "a\\0x" running', async () => {
    const { server, time, c } = await start();
    const shareHb = (groupId: string, memberId: string, memberEpoch: number, topics: string[] | null) =>
      c.send(76, 1, { groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames: topics });
    const member = randomUUID();
    expect((await shareHb(NUL_GROUP, member, 0, ['t'])).errorCode).toBe(ErrorCode.NONE);

    // Group "a": a share group whose only member left, then deleted.
    const other = randomUUID();
    expect((await shareHb('a', other, 0, ['t'])).errorCode).toBe(ErrorCode.NONE);
    await server.broker.share.initializationsSettled();
    expect((await shareHb('a', other, -1, null)).errorCode).toBe(ErrorCode.NONE);
    expect(await deleteGroup(c, 'a')).toEqual([{ groupId: 'a', errorCode: 0 }]);

    const describe = async () => (await c.send(77, 1, { groupIds: [NUL_GROUP], includeAuthorizedOperations: false })).groups[0]!;
    expect((await describe()).members.map((m) => m.memberId)).toEqual([member]);
    time.advance(SIXTY_SECONDS);
    await server.broker.runtime.flush();
    const after = await describe();
    expect([after.groupId, after.groupState, after.members]).toEqual([NUL_GROUP, 'Empty', []]);
  });
});
