/**
 * KIP-848 group formation: how many heartbeats N members joining together need until every one
 * owns its target, and through which epochs, pinned to what Kafka 4.3.1 answered to the same
 * requests in the same order (`formGroupInOrder`: all joins, then acknowledgements, then a
 * heartbeat round per heartbeat interval; recorded against a 4.3.1 broker, 200 partitions, and
 * compared live by the conformance suite). Raw protocol, manual clock.
 *
 * Kafka's rule (`GroupMetadataManager.consumerGroupHeartbeat`): every join bumps the group epoch;
 * the heartbeat that bumped it computes the new target when `group.consumer.assignment.interval.ms`
 * has passed since the last one (always with 0), else a later heartbeat of any member does; a
 * member moves only on its own heartbeats, first giving up what it must revoke, then taking what
 * is free, and the answer carries the assignment only when it changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { ServerHandle } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { formGroupInOrder, type FormationResult } from '../support/kip848-formation.js';

const PARTITIONS = 200;

/** `m<i>:<rest>` for i in [from, to], space separated. */
const each = (from: number, to: number, rest: (i: number) => string): string =>
  Array.from({ length: to - from + 1 }, (_, k) => `m${from + k}:${rest(from + k)}`).join(' ');
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, k) => from + k);

describe('KIP-848 group formation (heartbeats and epochs as Kafka 4.3.1)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    while (cleanups.length) await cleanups.pop()!();
  });

  async function form(n: number, config: { heartbeatIntervalMs: number; assignmentIntervalMs: number }): Promise<FormationResult> {
    const { server } = await startClosableServer(
      cleanups,
      {
        clock: 'manual',
        inMemory: true,
        config: {
          'group.consumer.min.heartbeat.interval.ms': Math.min(config.heartbeatIntervalMs, 5000),
          'group.consumer.heartbeat.interval.ms': config.heartbeatIntervalMs,
          'group.consumer.assignment.interval.ms': config.assignmentIntervalMs,
        },
      },
      'kmc-formation-',
    );
    return formOn(server, n, config.heartbeatIntervalMs);
  }

  async function formOn(server: ServerHandle, n: number, heartbeatIntervalMs: number): Promise<FormationResult> {
    server.broker.topics.create('orders', PARTITIONS);
    const client = await RawClient.connect(server.port);
    cleanups.push(() => void client.socket.destroy());
    const groupId = 'formation';
    return formGroupInOrder({
      groupId,
      topic: 'orders',
      memberIds: range(1, n).map(() => randomBytes(16).toString('base64url')),
      heartbeat: (_, req) => client.send(68, 1, req),
      describe: async () => (await client.send(69, 1, { groupIds: [groupId], includeAuthorizedOperations: false })).groups[0]!,
      interval: () => void server.clock.advance(heartbeatIntervalMs),
    });
  }

  it('assignment interval 0, 10 members: one epoch per join, 4 heartbeats each, one interval', async () => {
    const r = await form(10, { heartbeatIntervalMs: 100, assignmentIntervalMs: 0 });
    expect(r.phases).toEqual([
      // Each join bumps the group epoch and computes its target; only the first member finds its
      // partitions free.
      `m0:e2:200 ${each(1, 9, (i) => `e${i + 2}:0`)}`,
      // The first member is told to give up 180; the others move to epoch 11 and wait for them.
      `m0:e2:20 ${each(1, 9, () => 'e11:-')} m0:e11:-`,
      // A heartbeat interval later everyone takes its 20.
      `m0:e11:- ${each(1, 9, () => 'e11:20')}`,
      each(1, 9, () => 'e11:-'),
    ]);
    expect(r.heartbeatsPerMember).toEqual(Array(10).fill(4));
    expect(r.intervalRounds).toBe(1);
    expect(r.memberEpochs).toEqual(range(2, 11));
    expect([r.groupEpoch, r.assignmentEpoch]).toEqual([11, 11]);
    expect(r.ownedPerMember).toEqual(Array(10).fill(20));
  });

  it('assignment interval 0, 100 members: 4 heartbeats each, group epochs 2 to 101', async () => {
    const r = await form(100, { heartbeatIntervalMs: 100, assignmentIntervalMs: 0 });
    expect(r.heartbeatsPerMember).toEqual(Array(100).fill(4));
    expect(r.intervalRounds).toBe(1);
    expect(r.memberEpochs).toEqual(range(2, 101));
    expect([r.groupEpoch, r.assignmentEpoch]).toEqual([101, 101]);
    expect(r.ownedPerMember).toEqual(Array(100).fill(2));
  });

  it("Kafka's defaults (heartbeat 5 s, assignment interval 1 s), 10 members: every join waits at epoch 2, 5 heartbeats each", async () => {
    const r = await form(10, { heartbeatIntervalMs: 5000, assignmentIntervalMs: 1000 });
    expect(r.phases).toEqual([
      // The first join computes the target (epoch 2); the others bump the group epoch within the
      // assignment interval, so no new target: they reconcile to epoch 2 with nothing.
      `m0:e2:200 ${each(1, 9, () => 'e2:0')}`,
      each(0, 9, () => 'e2:-'),
      // 5 s later the first heartbeat computes the target of epoch 11.
      `m0:e2:20 ${each(1, 9, () => 'e11:-')}`,
      'm0:e11:-',
      `m0:e11:- ${each(1, 9, () => 'e11:20')}`,
      each(1, 9, () => 'e11:-'),
    ]);
    expect(r.heartbeatsPerMember).toEqual(Array(10).fill(5));
    expect(r.intervalRounds).toBe(2);
    expect(r.memberEpochs).toEqual([2, 11]);
    expect([r.groupEpoch, r.assignmentEpoch]).toEqual([11, 11]);
  });

  it("Kafka's defaults, 100 members: 5 heartbeats each, member epochs 2 and 101", async () => {
    const r = await form(100, { heartbeatIntervalMs: 5000, assignmentIntervalMs: 1000 });
    expect(r.heartbeatsPerMember).toEqual(Array(100).fill(5));
    expect(r.intervalRounds).toBe(2);
    expect(r.memberEpochs).toEqual([2, 101]);
    expect([r.groupEpoch, r.assignmentEpoch]).toEqual([101, 101]);
    expect(r.ownedPerMember).toEqual(Array(100).fill(2));
  });
});
