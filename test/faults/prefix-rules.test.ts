/**
 * Fault rules naming ids by prefix (`{ prefix }` for `group`, `topic`, `clientId`, `memberId`,
 * `transactionalId`): ids a client makes up at run time (Kafka Streams' transactional ids
 * `<application.id>-<process id>-<thread>`) are matched by the part a test knows (new-user trial,
 * a Kafka Streams team). Raw requests against a real server: the ids starting with the prefix get
 * the error, the others are handled; a Produce fails only the partitions of the topics the prefix
 * names; the rule model refuses an empty prefix and unknown fields, and the OpenAPI document and
 * the rule's description show the form.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { batchOf, createTopic } from '../support/raw-transactions.js';
import { normalizeRule } from '../../src/faults/index.js';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup() {
  const server = await startTestServer();
  cleanups.push(() => server.stop());
  const client = await RawClient.connect(server.port);
  cleanups.push(() => client.close());
  return { server, client };
}

describe('fault rules by id prefix', () => {
  it('a transactional id prefix fails the ids starting with it, and only those', async () => {
    const { server, client } = await setup();
    const rule = server.faults.add({ match: { api: 'InitProducerId', transactionalId: { prefix: 'shop-' } }, action: { type: 'error', error: 'COORDINATOR_LOAD_IN_PROGRESS' }, times: 'unlimited' });
    const init = async (transactionalId: string) =>
      (await client.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 })).errorCode;
    const ids = ['shop-2805b8b0-01ae-4721-9b9a-0fc45502681a-1', 'shop-c979ee61-1', 'shop', 'other-shop-1', 'Shop-1'];
    const errors = [];
    for (const id of ids) errors.push(await init(id));
    expect(errors).toEqual([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, 0, 0, 0]);
    expect(rule.fired).toBe(2);
    // The failed ones were not applied; the others were.
    expect(ids.map((id) => server.broker.transactions.get(id) !== undefined)).toEqual([false, false, true, true, true]);
    expect(rule.info().match).toEqual({ api: 'InitProducerId', apiKey: 22, transactionalId: { prefix: 'shop-' }, nth: 1 });
  });

  it('a topic prefix fails only the partitions of the topics it names; client id and group prefixes', async () => {
    const { server, client } = await setup();
    for (const topic of ['orders-eu', 'orders-us', 'audit']) await createTopic(client, topic);
    server.faults.add({ match: { api: 'Produce', topic: { prefix: 'orders-' } }, action: { type: 'error', error: 'NOT_LEADER_OR_FOLLOWER' } });
    const records = () => batchOf({ producerId: -1n, producerEpoch: -1, baseSequence: 0, count: 1, transactional: false });
    const produced = await client.send(0, 9, {
      ...defaultProduceRequest(), acks: -1, timeoutMs: 10_000,
      topicData: ['orders-eu', 'audit', 'orders-us'].map((name) => ({ name, topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: 0, records: records() }] })),
    });
    expect(produced.responses.map((t) => [t.name, t.partitionResponses[0]!.errorCode])).toEqual([
      ['orders-eu', ErrorCode.NOT_LEADER_OR_FOLLOWER],
      ['audit', 0],
      ['orders-us', ErrorCode.NOT_LEADER_OR_FOLLOWER],
    ]);
    expect(['orders-eu', 'orders-us', 'audit'].map((t) => server.broker.topics.get(t)!.partition(0)!.logEndOffset)).toEqual([0n, 0n, 1n]);

    // Both prefixes must match: the client id's and the group's.
    server.faults.add({ match: { api: 'OffsetCommit', clientId: { prefix: 'app-' }, group: { prefix: 'billing-' } }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' }, times: 'unlimited' });
    const commit = async (group: string, clientId: string) =>
      (await client.send(8, 8, { groupId: group, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'audit', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }] }, clientId)).topics[0]!.partitions[0]!.errorCode;
    expect([await commit('billing-eu', 'app-7'), await commit('billing-eu', 'cli'), await commit('shipping', 'app-7')]).toEqual([ErrorCode.REBALANCE_IN_PROGRESS, 0, 0]);
  });

  it('on a request naming several groups, only the groups the rule names fail; the others are handled', async () => {
    const { server, client } = await setup();
    for (const topic of ['orders', 'audit']) await createTopic(client, topic);
    const commit = (groupId: string, name: string, offset: bigint) =>
      client.send(8, 8, { groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name, topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
    for (const g of ['billing-1', 'shipping-1']) {
      await commit(g, 'orders', 5n);
      await commit(g, 'audit', 7n);
    }
    const fetchBoth = async () => {
      const res = await client.send(9, 8, {
        groupId: '', topics: [], requireStable: false,
        groups: ['billing-1', 'shipping-1'].map((groupId) => ({ groupId, memberId: null, memberEpoch: -1, topics: ['orders', 'audit'].map((name) => ({ name, topicId: ZERO_UUID, partitionIndexes: [0] })) })),
      });
      return res.groups.map((g) => [g.groupId, g.errorCode, g.topics.map((t) => [t.name, t.partitions[0]!.errorCode, t.partitions[0]!.committedOffset])]);
    };
    // A group and a topic: that topic in the groups named; the other group whole.
    const both = server.faults.add({ match: { api: 'OffsetFetch', group: { prefix: 'billing-' }, topic: 'orders' }, action: { type: 'error', error: 'UNSTABLE_OFFSET_COMMIT' } });
    expect(await fetchBoth()).toEqual([
      ['billing-1', 0, [['orders', ErrorCode.UNSTABLE_OFFSET_COMMIT, -1n], ['audit', 0, 7n]]],
      ['shipping-1', 0, [['orders', 0, 5n], ['audit', 0, 7n]]],
    ]);
    expect(both.info().fired).toBe(1);
    // A group alone: that group's entry.
    server.faults.add({ match: { api: 'OffsetFetch', group: { prefix: 'billing-' } }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' } });
    expect(await fetchBoth()).toEqual([
      ['billing-1', ErrorCode.COORDINATOR_NOT_AVAILABLE, []],
      ['shipping-1', 0, [['orders', 0, 5n], ['audit', 0, 7n]]],
    ]);
    server.faults.add({ match: { api: 'DescribeGroups', group: 'billing-1' }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' } });
    const described = await client.send(15, 5, { groups: ['shipping-1', 'billing-1'], includeAuthorizedOperations: false });
    expect(described.groups.map((g) => [g.groupId, g.errorCode, g.groupState])).toEqual([['shipping-1', 0, 'Empty'], ['billing-1', ErrorCode.COORDINATOR_NOT_AVAILABLE, '']]);
    // DeleteGroups deletes the group the rule does not name, and only that one.
    server.faults.add({ match: { api: 'DeleteGroups', group: { prefix: 'billing-' } }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' } });
    const deleted = await client.send(42, 2, { groupsNames: ['billing-1', 'shipping-1'] });
    expect(deleted.results.map((r) => [r.groupId, r.errorCode])).toEqual([['billing-1', ErrorCode.COORDINATOR_NOT_AVAILABLE], ['shipping-1', 0]]);
    expect(['billing-1', 'shipping-1'].map((g) => server.broker.offsets.hasOffsets(g))).toEqual([true, false]);
  });

  it('the rule model refuses an empty prefix, other fields and other types, and the OpenAPI document shows the form', () => {
    const rule = (match: Record<string, unknown>) => () => normalizeRule({ match, action: { type: 'delay', ms: 1 } });
    expect(normalizeRule({ match: { memberId: { prefix: 'consumer-' } }, action: { type: 'delay', ms: 1 } }).match).toEqual({ memberId: { prefix: 'consumer-' }, nth: 1 });
    expect(rule({ group: { prefix: '' } })).toThrow('match.group.prefix must not be empty (leave match.group out to match any request)');
    expect(rule({ topic: {} })).toThrow('match.topic.prefix is required in {"prefix": "..."}');
    expect(rule({ topic: '' })).toThrow(/^match.topic must not be empty/);
    expect(rule({ topic: { prefix: 'a', suffix: 'b' } })).toThrow('unknown field "suffix" in match.topic');
    expect(rule({ clientId: { prefix: 7 } })).toThrow('match.clientId.prefix must be a string, got 7');
    expect(rule({ transactionalId: ['a'] })).toThrow(/match.transactionalId must be a string or \{"prefix": "..."\}/);
    const schema = OPENAPI_DOCUMENT.components.schemas.FaultMatch.properties.transactionalId as { oneOf: Array<{ type: string }> };
    expect(schema.oneOf.map((s) => s.type)).toEqual(['string', 'object']);
  });
});
