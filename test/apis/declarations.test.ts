/**
 * What each API definition declares beside its handler: its error response (Kafka's
 * `getErrorResponse`), the names its requests carry, and its routing in the simulated cluster.
 */
import { describe, expect, it } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { NO_RESPONSE, routingOf, type ApiDefinition } from '../../src/apis/types.js';
import { protocolNameAt } from '../../src/apis/11-join-group.js';
import { leaveGroupResponseAt, leavingMembers } from '../../src/apis/13-leave-group.js';
import { API_CODECS, type ApiKeyWithCodec } from '../../src/protocol/messages/index.js';
import { Reader, Writer, ZERO_UUID } from '../../src/protocol/primitives.js';
import { ErrorCode } from '../../src/protocol/errors.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
const api = (key: number): ApiDefinition => API_HANDLERS.get(key)!;
const codec = (key: number) => API_CODECS[key as ApiKeyWithCodec] as any;

/** The error response of `body` at `version`, as a client decodes it. */
function errorResponse(key: number, version: number, body: object, errorCode: number): any {
  const w = new Writer();
  codec(key).response.encode(w, version, api(key).errorResponse(body, version, errorCode));
  return codec(key).response.decode(new Reader(Buffer.from(w.finish())), version);
}

const defaultRequest = (key: number): any => codec(key).request[`default${api(key).name}Request`]();
const TOPIC_ID = 'AAECAwQFBgcICQoLDA0ODw';

describe('API definitions', () => {
  it('every API declares an error response that encodes at every version it serves', () => {
    for (const [key, a] of API_HANDLERS) {
      for (let v = a.minVersion; v <= a.maxVersion; v++) {
        const w = new Writer();
        expect(() => codec(key).response.encode(w, v, a.errorResponse(defaultRequest(key), v, ErrorCode.NOT_COORDINATOR)), `${a.name} v${v}`).not.toThrow();
        expect(routingOf(a, v).to, `${a.name} v${v}`).toMatch(/^(any-broker|group-coordinators?|partition-leaders|coordinated-groups|transaction-coordinator)$/);
      }
    }
  });

  it('routes group APIs by coordinator, per-partition APIs by leader', () => {
    const routes = Object.fromEntries([...API_HANDLERS.values()].map((a) => [a.name, routingOf(a, a.maxVersion).to]));
    expect(routes).toMatchObject({
      Produce: 'partition-leaders', Fetch: 'partition-leaders', ListOffsets: 'partition-leaders',
      OffsetCommit: 'group-coordinator', JoinGroup: 'group-coordinator', Heartbeat: 'group-coordinator', LeaveGroup: 'group-coordinator',
      SyncGroup: 'group-coordinator', OffsetDelete: 'group-coordinator', ConsumerGroupHeartbeat: 'group-coordinator',
      OffsetFetch: 'group-coordinators', DescribeGroups: 'group-coordinators', DeleteGroups: 'group-coordinators', ConsumerGroupDescribe: 'group-coordinators',
      ListGroups: 'coordinated-groups', Metadata: 'any-broker', FindCoordinator: 'any-broker', ApiVersions: 'any-broker',
      DeleteRecords: 'partition-leaders', OffsetForLeaderEpoch: 'partition-leaders', CreatePartitions: 'any-broker', DescribeConfigs: 'any-broker',
      InitProducerId: 'transaction-coordinator', AddOffsetsToTxn: 'transaction-coordinator', EndTxn: 'transaction-coordinator', TxnOffsetCommit: 'group-coordinator',
      AddPartitionsToTxn: 'any-broker', DescribeTransactions: 'any-broker', ListTransactions: 'any-broker',
    });
    expect(routingOf(api(9), 7).to).toBe('group-coordinator');
    expect([...API_HANDLERS.values()].filter((a) => a.partitions).map((a) => a.name)).toEqual(['Produce', 'Fetch', 'ListOffsets', 'OffsetCommit', 'OffsetFetch', 'DeleteRecords', 'OffsetForLeaderEpoch']);
  });

  it('puts the error on every partition of Produce (by topic id from v13) and OffsetCommit', () => {
    const produce = { ...defaultRequest(0), acks: -1, topicData: [{ name: '', topicId: TOPIC_ID, partitionData: [{ index: 0, records: null }, { index: 2, records: null }] }] };
    const res = errorResponse(0, 13, produce, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(res.responses).toHaveLength(1);
    expect(res.responses[0]).toMatchObject({ name: '', topicId: TOPIC_ID });
    expect(res.responses[0].partitionResponses.map((p: any) => [p.index, p.errorCode, p.baseOffset])).toEqual([[0, 6, -1n], [2, 6, -1n]]);
    // acks=0: an answer holding an error closes the connection (KafkaApis.handleProduceRequest); one without is not sent.
    expect(() => api(0).unanswered!({ ...produce, acks: 0 }, res)).toThrow(`error during a Produce with acks=0: ${TOPIC_ID}-0 -> NOT_LEADER_OR_FOLLOWER, ${TOPIC_ID}-2 -> NOT_LEADER_OR_FOLLOWER`);
    expect(api(0).unanswered!({ ...produce, acks: 0 }, errorResponse(0, 13, produce, ErrorCode.NONE))).toBe(NO_RESPONSE);
    expect(api(0).unanswered!(produce, res)).toBe(res);

    const commit = { ...defaultRequest(8), groupId: 'g', topics: [{ name: 't', topicId: ZERO_UUID, partitions: [{ partitionIndex: 1, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }] };
    expect(errorResponse(8, 9, commit, ErrorCode.REBALANCE_IN_PROGRESS).topics).toEqual([{ name: 't', topicId: ZERO_UUID, partitions: [{ partitionIndex: 1, errorCode: 27 }] }]);
  });

  it('answers OffsetFetch per partition (v1), at the top level (v2-7), per group (v8+)', () => {
    const one = { ...defaultRequest(9), groupId: 'g', topics: [{ name: 't', partitionIndexes: [0, 1] }] };
    expect(errorResponse(9, 1, one, 16).topics[0].partitions.map((p: any) => [p.partitionIndex, p.committedOffset, p.errorCode])).toEqual([[0, -1n, 16], [1, -1n, 16]]);
    expect(errorResponse(9, 5, one, 16)).toMatchObject({ errorCode: 16, topics: [] });
    const many = { ...defaultRequest(9), groups: [{ groupId: 'a', memberId: null, memberEpoch: -1, topics: null }, { groupId: 'b', memberId: 'm', memberEpoch: 3, topics: [] }] };
    expect(errorResponse(9, 8, many, 15).groups).toEqual([{ groupId: 'a', topics: [], errorCode: 15 }, { groupId: 'b', topics: [], errorCode: 15 }]);
  });

  it('answers FindCoordinator per key from v4, and JoinGroup with a null protocol name from v7', () => {
    const find = { ...defaultRequest(10), key: 'g', coordinatorKeys: ['a', 'b'] };
    expect(errorResponse(10, 3, find, 15)).toMatchObject({ errorCode: 15, nodeId: -1, host: '', port: -1 });
    expect(errorResponse(10, 4, find, 15).coordinators.map((c: any) => [c.key, c.nodeId, c.errorCode])).toEqual([['a', -1, 15], ['b', -1, 15]]);
    const join = { ...defaultRequest(11), groupId: 'g', memberId: 'm-1' };
    expect(errorResponse(11, 6, join, 16)).toMatchObject({ errorCode: 16, generationId: -1, protocolName: '', memberId: 'm-1' });
    expect(errorResponse(11, 7, join, 16)).toMatchObject({ errorCode: 16, generationId: -1, protocolName: null, memberId: 'm-1' });
  });

  it('answers DeleteTopics per name and per id, DescribeGroups per group', () => {
    const del = { ...defaultRequest(20), topicNames: ['x'], topics: [{ name: null, topicId: TOPIC_ID }] };
    expect(api(20).errorResponse(del, 6, 41).responses.map((r: any) => [r.name, r.topicId, r.errorCode])).toEqual([['x', ZERO_UUID, 41], [null, TOPIC_ID, 41]]);
    const groups = errorResponse(15, 5, { ...defaultRequest(15), groups: ['a', 'b'] }, 16).groups;
    expect(groups.map((g: any) => [g.groupId, g.errorCode, g.groupState])).toEqual([['a', 16, ''], ['b', 16, '']]);
  });

  it('answers DescribeConfigs per resource and InitProducerId with producer id and epoch -1, as Kafka', () => {
    const configs = { ...defaultRequest(32), resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }, { resourceType: 4, resourceName: '1', configurationKeys: [] }] };
    expect(errorResponse(32, 4, configs, 15).results.map((r: any) => [r.resourceType, r.resourceName, r.errorCode, r.configs])).toEqual([[2, 't', 15, []], [4, '1', 15, []]]);
    expect(errorResponse(22, 5, defaultRequest(22), 15)).toMatchObject({ errorCode: 15, producerId: -1n, producerEpoch: -1 });
  });

  it('names the groups, members, topics and transactional ids a request carries', () => {
    expect(api(9).names({ ...defaultRequest(9), groups: [{ groupId: 'a', memberId: 'm', memberEpoch: 1, topics: [{ name: '', topicId: TOPIC_ID, partitionIndexes: [3] }] }, { groupId: 'b', memberId: null, memberEpoch: -1, topics: null }] }, 10))
      .toEqual({ groups: ['a', 'b'], members: ['m', null], topics: [{ name: '', topicId: TOPIC_ID, partitions: [3] }] });
    expect(api(9).names({ ...defaultRequest(9), groupId: 'g', topics: [{ name: 't', partitionIndexes: [0] }] }, 7)).toEqual({ groups: ['g'], topics: [{ name: 't', partitions: [0] }] });
    expect(api(13).names({ ...defaultRequest(13), groupId: 'g', memberId: 'm-0' }, 2)).toEqual({ groups: ['g'], members: ['m-0'] });
    expect(api(13).names({ ...defaultRequest(13), groupId: 'g', members: [{ memberId: 'm-1', groupInstanceId: null, reason: null }, { memberId: '', groupInstanceId: 'i', reason: null }] }, 3))
      .toEqual({ groups: ['g'], members: ['m-1', ''] });
    expect(api(10).names({ ...defaultRequest(10), keyType: 1, key: 'txn' }, 3)).toEqual({ groups: [], transactionalIds: ['txn'] });
    expect(api(10).names({ ...defaultRequest(10), coordinatorKeys: ['a', 'b'] }, 4)).toEqual({ groups: ['a', 'b'], transactionalIds: [] });
    expect(api(10).names({ ...defaultRequest(10), keyType: 2, coordinatorKeys: ['g:id:0'] }, 6)).toEqual({ groups: [], transactionalIds: [] });
    expect(api(26).names({ ...defaultRequest(26), transactionalId: 'txn' }, 5)).toEqual({ transactionalIds: ['txn'] });
    expect(api(3).names({ ...defaultRequest(3), topics: [{ name: 't', topicId: ZERO_UUID }, { name: null, topicId: TOPIC_ID }] }, 12))
      .toEqual({ topics: [{ name: 't', partitions: null }, { name: null, topicId: TOPIC_ID, partitions: null }] });
  });
});

describe('wire-version rules', () => {
  it("JoinGroup's protocol name: '' before v7, null for '' from v7 (Kafka's JoinGroupResponse)", () => {
    expect([protocolNameAt(6, null), protocolNameAt(6, 'range'), protocolNameAt(7, ''), protocolNameAt(7, null), protocolNameAt(9, 'range')]).toEqual(['', 'range', null, null, 'range']);
  });

  it('LeaveGroup v0-2 name one member and answer its error at the top level; v3+ batch', () => {
    const req = { groupId: 'g', memberId: 'm-0', members: [{ memberId: 'm-1', groupInstanceId: 'i', reason: 'bye' }] };
    expect(leavingMembers(req, 2)).toEqual([{ memberId: 'm-0', groupInstanceId: null, reason: null }]);
    expect(leavingMembers(req, 3)).toEqual(req.members);
    const members = [{ memberId: 'm-0', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID }];
    expect(leaveGroupResponseAt(2, ErrorCode.NONE, members)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: [] });
    expect(leaveGroupResponseAt(2, ErrorCode.COORDINATOR_NOT_AVAILABLE, members)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] });
    expect(leaveGroupResponseAt(3, ErrorCode.NONE, members)).toEqual({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, members });
  });
});
