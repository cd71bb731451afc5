/**
 * A simulated coordinator load (`cluster.coordinatorLoadInProgress`) and the members' sessions, as
 * Kafka 4.3: a coordinator loading its `__consumer_offsets` partition holds no timers, and
 * `GroupMetadataManager.onLoaded` starts every member's session again once loaded. So no member
 * expires during the load however long it lasts (here the manual clock runs past every session
 * while it lasts), and each session runs its full length from the load's end (new-user trial 25:
 * a Connect worker lost its membership to a session timeout during an 8 s load).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { hb } from '../support/kip848-group.js';
import { STREAMS_TEST_CONFIG, join as streamsJoin } from '../support/streams-group.js';
import { createTopic } from '../support/raw-transactions.js';
import { defaultJoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { ErrorCode } from '../../src/protocol/errors.js';

/** Resolves once `condition` holds, asking again after each answer (a timer's work waits behind requests read before it). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setImmediate(resolve));
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('coordinator load in progress and member sessions', () => {
  it('no member expires during a load; every session starts again, whole, when it ends (classic and KIP-848)', async () => {
    const server = await startTestServer({ clock: 'manual', config: { 'group.initial.rebalance.delay.ms': 0, 'group.consumer.assignment.interval.ms': 0 } });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await createTopic(raw, 'load-t');

    // A classic member (session 10 s) and a KIP-848 member (the broker's 45 s).
    const joinBody = { ...defaultJoinGroupRequest(), groupId: 'load-classic', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] };
    const required = await raw.send(11, 5, joinBody);
    expect(required.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const joined = await raw.send(11, 5, { ...joinBody, memberId: required.memberId });
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const synced = await raw.send(14, 3, { groupId: 'load-classic', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
    expect(synced.errorCode).toBe(ErrorCode.NONE);
    const consumer = await raw.send(68, 1, hb('load-848', 'member-848-aaaaaaaaaaaa', 0, { rebalanceTimeoutMs: 10_000, subscribedTopicNames: ['load-t'], topicPartitions: [] }));
    expect(consumer.errorCode).toBe(ErrorCode.NONE);

    const members = async (): Promise<{ classic: number; consumer: number }> => {
      const classic = await raw.send(15, 5, { groups: ['load-classic'], includeAuthorizedOperations: false });
      const kip848 = await raw.send(69, 0, { groupIds: ['load-848'], includeAuthorizedOperations: false });
      return { classic: classic.groups[0]!.members.length, consumer: kip848.groups[0]!.members.length };
    };

    // A load longer than the test: the manual clock passes every session while it lasts.
    server.cluster.coordinatorLoadInProgress(null, 600_000);
    server.clock.advance(60_000);
    server.cluster.coordinatorLoadInProgress(null, 0);
    expect(await members()).toEqual({ classic: 1, consumer: 1 });

    // From the load's end each session runs whole: 9 s in, both are there; past 10 s the classic
    // member's runs out, past 45 s the KIP-848 member's.
    server.clock.advance(9_000);
    expect(await members()).toEqual({ classic: 1, consumer: 1 });
    server.clock.advance(2_000);
    await until(async () => (await members()).classic === 0);
    expect(await members()).toEqual({ classic: 0, consumer: 1 });
    server.clock.advance(35_000);
    await until(async () => (await members()).consumer === 0);
  });

  it('a manual clock advanced far past a short load fires no member timer while the load lasts (classic, KIP-848, streams)', async () => {
    const server = await startTestServer({ clock: 'manual', config: { 'group.initial.rebalance.delay.ms': 0, 'group.consumer.assignment.interval.ms': 0, ...STREAMS_TEST_CONFIG } });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    await createTopic(raw, 'load-t');
    await createTopic(raw, 'in');
    const joinBody = { ...defaultJoinGroupRequest(), groupId: 'short-classic', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] };
    const required = await raw.send(11, 5, joinBody);
    const joined = await raw.send(11, 5, { ...joinBody, memberId: required.memberId });
    await raw.send(14, 3, { groupId: 'short-classic', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
    expect((await raw.send(68, 1, hb('short-848', 'member-848-bbbbbbbbbbbb', 0, { rebalanceTimeoutMs: 10_000, subscribedTopicNames: ['load-t'], topicPartitions: [] }))).errorCode).toBe(ErrorCode.NONE);
    expect((await raw.send(88, 0, streamsJoin('short-streams', 'streams-m1', 'p1'))).errorCode).toBe(ErrorCode.NONE);
    await server.broker.runtime.flush();
    const members = () => [
      server.broker.classic.group('short-classic')?.allMembers().length ?? 0,
      server.broker.consumer.group('short-848')?.members.size ?? 0,
      server.broker.streams.group('short-streams')?.members.size ?? 0,
    ];
    expect(members()).toEqual([1, 1, 1]);
    // A 5 s load (real time), and the manual clock moved 100 s at once: no timer of a loading
    // coordinator fires (they were pushed back 5 s on the server clock, and fired).
    server.cluster.coordinatorLoadInProgress(null, 5_000);
    server.clock.advance(100_000);
    await server.broker.runtime.flush();
    expect(members()).toEqual([1, 1, 1]);
    server.cluster.coordinatorLoadInProgress(null, 0);
    // Loaded: each session runs whole from now (classic 10 s, the others 45 s).
    server.clock.advance(11_000);
    await until(async () => members()[0] === 0);
    expect(members()).toEqual([0, 1, 1]);
    server.clock.advance(35_000);
    await until(async () => members()[1] === 0 && members()[2] === 0);
  });

  it("a load of every group does not cut short a group's own longer load (adversarial trial 25b)", async () => {
    const server = await startTestServer({ clock: 'manual', config: { 'group.initial.rebalance.delay.ms': 0 } });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const joinBody = { ...defaultJoinGroupRequest(), groupId: 'own-load', sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] };
    const required = await raw.send(11, 5, joinBody);
    const joined = await raw.send(11, 5, { ...joinBody, memberId: required.memberId });
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const synced = await raw.send(14, 3, { groupId: 'own-load', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, protocolType: null, protocolName: null, assignments: [{ memberId: joined.memberId, assignment: Buffer.alloc(0) }] });
    expect(synced.errorCode).toBe(ErrorCode.NONE);
    // Read in process: the group answers COORDINATOR_LOAD_IN_PROGRESS while it loads. A request
    // first, so that a timer that came due has run (its work waits behind requests read before it).
    const members = async (): Promise<number> => {
      await raw.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
      return server.broker.classic.allGroups().find((g) => g.groupId === 'own-load')?.numMembers ?? 0;
    };

    // The group's own load outlasts a short load of every group started after it: the member's
    // session waits for the longer one.
    server.cluster.coordinatorLoadInProgress('own-load', 600_000);
    server.cluster.coordinatorLoadInProgress(null, 1);
    server.clock.advance(20_000);
    expect(await members()).toBe(1);
    server.cluster.coordinatorLoadInProgress(null, 0);
    server.clock.advance(11_000);
    await until(async () => (await members()) === 0);
  });
});
