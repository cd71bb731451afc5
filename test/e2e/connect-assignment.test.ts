/**
 * A Kafka Connect worker's assignment in the group views (`describeGroup`, `GET /groups/{id}`): the
 * leader's SyncGroup bytes for protocol type `connect` read as Connect's ConnectProtocol (V0) and
 * IncrementalCooperativeConnectProtocol (V1/V2) lay them out; a Connect trial wished for it
 * (session 33: the workers' assignment showed as null).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { Writer } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Tasks = Array<[connector: string, ids: number[]]>;

/** A Connect assignment: version, error, leader, leader URL, config offset, assigned, and from V1 revoked and the delay. */
function connectAssignment(version: number, leader: string, assigned: Tasks, revoked: Tasks | null, delayMs: number): Buffer {
  const w = new Writer();
  w.int16(version);
  w.int16(0);
  w.string(leader, false);
  w.string('http://worker-1:8083/', false);
  w.int64(42n);
  const tasks = (list: Tasks) => {
    w.int32(list.length);
    for (const [connector, ids] of list) {
      w.string(connector, false);
      w.int32(ids.length);
      for (const id of ids) w.int32(id);
    }
  };
  tasks(assigned);
  if (version >= 1) {
    if (revoked === null) w.int32(-1);
    else tasks(revoked);
    w.int32(delayMs);
  }
  return Buffer.from(w.finish());
}

describe("a Connect worker's assignment", () => {
  it.each([0, 2])('version %i: connectors and tasks per worker, the connector itself as task -1, revoked from V1', async (version) => {
    const server = await startTestServer({ config: { 'group.initial.rebalance.delay.ms': 0 } });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => raw.close());
    const G = `connect-group-${version}`;
    const join = (memberId: string) => raw.send(11, 7, {
      groupId: G, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 60000, memberId, groupInstanceId: null, protocolType: 'connect',
      protocols: [{ name: version === 0 ? 'default' : 'sessioned', metadata: Buffer.from([0, version]) }], reason: null,
    });
    let joined = await join('');
    if (joined.errorCode === ErrorCode.MEMBER_ID_REQUIRED) joined = await join(joined.memberId);
    expect([joined.errorCode, joined.leader]).toEqual([ErrorCode.NONE, joined.memberId]);
    const me = joined.memberId;
    const assignment = connectAssignment(version, me, [['file-source', [-1, 1, 0]], ['sink', [2]]], version >= 1 ? [['old', [3]]] : null, 5000);
    const synced = await raw.send(14, 5, { groupId: G, generationId: joined.generationId, memberId: me, groupInstanceId: null, protocolType: 'connect', protocolName: joined.protocolName, assignments: [{ memberId: me, assignment }] });
    expect(synced.errorCode).toBe(ErrorCode.NONE);

    const group = await server.describeGroup(G);
    expect(group!.protocolType).toBe('connect');
    expect(group!.members.map((m) => [m.memberId, m.assignment, m.connectAssignment])).toEqual([[me, null, {
      version, error: 0, leader: me, leaderUrl: 'http://worker-1:8083/', configOffset: 42,
      assigned: [{ connector: 'file-source', runsConnector: true, tasks: [0, 1] }, { connector: 'sink', runsConnector: false, tasks: [2] }],
      revoked: version >= 1 ? [{ connector: 'old', runsConnector: false, tasks: [3] }] : null,
      delayMs: version >= 1 ? 5000 : null,
    }]]);
  });
});
