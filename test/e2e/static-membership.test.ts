import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultJoinGroupRequest, type JoinGroupRequest } from '../../src/protocol/messages/JoinGroupRequest.js';
import { defaultSyncGroupRequest } from '../../src/protocol/messages/SyncGroupRequest.js';

const joinRequest = (groupId: string, instanceId: string, memberId = ''): JoinGroupRequest => ({
  ...defaultJoinGroupRequest(),
  groupId, sessionTimeoutMs: 30000, rebalanceTimeoutMs: 60000, memberId, groupInstanceId: instanceId, protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) }],
});

describe('static membership over the wire (JoinGroup v5)', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.stop());

  it('a restarted static member rejoins without a rebalance and the old member id is fenced', async () => {
    const groupId = 'static-group';
    const first = await RawClient.connect(server.port);
    const joined = await first.send(11, 5, joinRequest(groupId, 'instance-1'));
    expect(joined.errorCode).toBe(ErrorCode.NONE); // static members skip MEMBER_ID_REQUIRED
    expect(joined.generationId).toBe(1);
    const assignment = Buffer.from('assignment-bytes');
    const synced = await first.send(14, 3, {
      ...defaultSyncGroupRequest(), groupId, generationId: 1, memberId: joined.memberId, groupInstanceId: 'instance-1',
      assignments: [{ memberId: joined.memberId, assignment }],
    });
    expect(synced.errorCode).toBe(ErrorCode.NONE);
    first.close(); // the process "restarts" without leaving the group

    const second = await RawClient.connect(server.port);
    const rejoined = await second.send(11, 5, joinRequest(groupId, 'instance-1'));
    expect(rejoined.errorCode).toBe(ErrorCode.NONE);
    expect(rejoined.generationId).toBe(1); // no rebalance: same generation
    expect(rejoined.memberId).not.toBe(joined.memberId);
    const resynced = await second.send(14, 3, {
      ...defaultSyncGroupRequest(), groupId, generationId: 1, memberId: rejoined.memberId, groupInstanceId: 'instance-1', assignments: [],
    });
    expect(resynced.errorCode).toBe(ErrorCode.NONE);
    expect(resynced.assignment).toEqual(assignment);

    const stale = await second.send(12, 3, { groupId, generationId: 1, memberId: joined.memberId, groupInstanceId: 'instance-1' });
    expect(stale.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const current = await second.send(12, 3, { groupId, generationId: 1, memberId: rejoined.memberId, groupInstanceId: 'instance-1' });
    expect(current.errorCode).toBe(ErrorCode.NONE);
    second.close();
  });
});
