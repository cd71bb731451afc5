/**
 * Share groups as the views show them: `__share_group_state` in Metadata as Kafka 4.3 lists it (an
 * internal topic, Kafka's `Topic.INTERNAL_TOPICS`, with `share.coordinator.state.topic.num.partitions`
 * partitions, from its creation on the first share-coordinator lookup, and after a restart); the
 * admin API's groups view of a share group (members, assignments, in-flight and archived records
 * per share partition); fault rules on ShareGroupHeartbeat, ShareFetch and ShareAcknowledge.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { RawClient } from '../support/raw-client.js';
import { waitFor } from '../support/kafkajs.js';
import { startClosableServer } from '../support/server.js';
import type { ServerHandle } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { OPENAPI_DOCUMENT } from '../../src/admin/openapi.js';
import { describeGroupHeader } from '../../src/admin/groups.js';
import { shareFetchRequest as fetchReq, shareGroupHolding, SHARE_TEST_CONFIG as CONFIG } from '../support/share-group.js';

const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const client = (server: ServerHandle): Promise<RawClient> => RawClient.connectCleaned(server.port, cleanups);

/** The topics Metadata v12 lists when asked for all: name, internal flag and partition count. */
async function allTopics(c: RawClient): Promise<Array<[string, boolean, number]>> {
  const res = await c.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return res.topics.map((t): [string, boolean, number] => [t.name!, t.isInternal, t.partitions.length]).sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe('share groups in the views', () => {
  it('Metadata lists __share_group_state (internal, share.coordinator.state.topic.num.partitions) once a share-state key was looked up, and after a restart', async () => {
    const config = { 'share.coordinator.state.topic.num.partitions': 3 };
    const first = await startClosableServer(cleanups, { config }, 'kmc-share-views-');
    const topic = first.server.broker.topics.create('sv', 2);
    let c = await client(first.server);
    expect(await allTopics(c)).toEqual([['sv', false, 2]]);
    // Nor its directories: Kafka has none before the topic is created.
    const stateDirs = () => readdirSync(first.dataDir).filter((d) => d.startsWith('__share_group_state-')).sort();
    expect(stateDirs()).toEqual([]);
    // By name before it exists: not auto-created as a user topic.
    const byName = await c.send(3, 12, { topics: [{ name: '__share_group_state', topicId: ZERO_UUID }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(byName.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    const found = await c.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [`g:${topic.id}:0`] });
    expect(found.coordinators[0]!.errorCode).toBe(ErrorCode.NONE);
    const listed: Array<[string, boolean, number]> = [['__share_group_state', true, 3], ['sv', false, 2]];
    expect(await allTopics(c)).toEqual(listed);
    expect(stateDirs()).toEqual(['__share_group_state-0', '__share_group_state-1', '__share_group_state-2']);
    // Internal: not deletable, not writable.
    const del = await c.send(20, 6, { topics: [{ name: '__share_group_state', topicId: ZERO_UUID }], topicNames: [], timeoutMs: 5000 });
    expect(del.responses[0]!.errorCode).toBe(ErrorCode.INVALID_REQUEST);

    await first.close();
    const second = await startClosableServer(cleanups, { config, dataDir: first.dataDir });
    c = await client(second.server);
    expect(await allTopics(c)).toEqual(listed);
    expect(second.server.broker.topics.get('__share_group_state')!.internal).toBe(true);
  });

  it('a share group initializing its first partition creates __share_group_state with the default 50 partitions', async () => {
    const { server, dataDir } = await startClosableServer(cleanups, {}, 'kmc-share-views-');
    const topic = server.broker.topics.create('sv2', 1);
    const c = await client(server);
    expect((await allTopics(c)).map(([name]) => name)).toEqual(['sv2']);
    expect(readdirSync(dataDir).filter((d) => d.startsWith('__share_group_state-'))).toEqual([]);
    // What the share group coordinator does once a member is assigned the partition.
    await server.broker.sharePersister.initializeState('g', [{ topicId: topic.id, partition: 0, stateEpoch: 0, startOffset: 0n }]);
    expect(await allTopics(c)).toEqual([['__share_group_state', true, 50], ['sv2', false, 1]]);
    expect(readdirSync(dataDir).filter((d) => d.startsWith('__share_group_state-'))).toHaveLength(50);
  });

  it('the admin API lists and describes a share group: members, assignments, and per share partition its offsets and in-flight records by state', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG, adminPort: 0, adminHost: '127.0.0.1' }, 'kmc-share-views-');
    const c = await client(server);
    const { member, topicId } = await shareGroupHolding(server, c, 'vg', 'vw');
    // Partition 0: 0-1 accepted, 2 released, 3 rejected, 4 still held; partition 1: all 5 held.
    const acked = await c.send(79, 2, {
      groupId: 'vg', memberId: member, shareSessionEpoch: 1, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 3n, acknowledgeTypes: [ACCEPT, ACCEPT, RELEASE, REJECT] }] }] }],
    });
    expect(acked.responses[0]!.partitions[0]!.errorCode).toBe(0);

    const base = server.admin!.url;
    const list = (await (await fetch(`${base}/groups`)).json()) as { groups: unknown[] };
    expect(list.groups).toEqual([{ groupId: 'vg', type: 'share', state: 'Stable', protocolType: 'share', members: 1, committedPartitions: 0, groupEpoch: 3 }]);
    const res = await fetch(`${base}/groups/vg`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as Record<string, any>;
    const schemas = OPENAPI_DOCUMENT.components.schemas as unknown as Record<string, { required: readonly string[] }>;
    expect(Object.keys(d).sort()).toEqual([...schemas['GroupDescription']!.required].sort());
    expect(Object.keys(d['sharePartitions'][0]).sort()).toEqual([...schemas['SharePartition']!.required].sort());
    expect(d).toMatchObject({ groupId: 'vg', type: 'share', state: 'Stable', protocolType: 'share', groupEpoch: 3, assignmentEpoch: 3, assignor: 'simple', offsets: [], totalLag: 7 });
    expect(d['members']).toEqual([
      {
        memberId: member, groupInstanceId: null, clientId: expect.any(String), clientHost: expect.any(String), sessionTimeoutMs: null, sessionExpiresInMs: expect.any(Number),
        upgraded: null, rebalanceTimeoutMs: -1, assignment: [{ topic: 'vw', partitions: [0, 1] }], memberEpoch: 3, memberState: null, rackId: null,
        subscribedTopicNames: ['vw'], subscribedTopicRegex: null, targetAssignment: null, connectAssignment: null, streamsTasks: null,
      },
    ]);
    // Its session runs: at most share.session.timeout.ms (45 s) to go.
    expect(d['members'][0].sessionExpiresInMs).toBeGreaterThan(0);
    expect(d['members'][0].sessionExpiresInMs).toBeLessThanOrEqual(45_000);
    expect(d['sharePartitions']).toEqual([
      { topic: 'vw', partition: 0, startOffset: 2, endOffset: 4, logEndOffset: 5, lag: 2, inFlight: { acquired: 1, available: 1, acknowledged: 0, archived: 1 } },
      { topic: 'vw', partition: 1, startOffset: 0, endOffset: 4, logEndOffset: 5, lag: 5, inFlight: { acquired: 5, available: 0, acknowledged: 0, archived: 0 } },
    ]);
    // The overview sums the share partitions' lag; the console's group watch reads the header,
    // which leaves the share partitions out (a look each second at every group).
    const overview = (await (await fetch(`${base}/overview`)).json()) as { groups: Array<Record<string, unknown>> };
    expect(overview.groups).toEqual([expect.objectContaining({ groupId: 'vg', type: 'share', totalLag: 7 })]);
    const { offsets, uncommittedPartitions, pendingTransactionalOffsets, totalLag, sharePartitions, ...header } = d;
    // The same header, but for the time left of the member's session, which runs on meanwhile.
    expect(describeGroupHeader(server.broker, 'vg')).toEqual({ ...header, members: [{ ...header['members'][0], sessionExpiresInMs: expect.any(Number) }], sharePartitions: null });
  });

  it('fault rules answer ShareGroupHeartbeat, ShareFetch and ShareAcknowledge with errors (nothing applied), delays, closed connections and lost answers', async () => {
    const { server } = await startClosableServer(cleanups, { config: CONFIG }, 'kmc-share-views-');
    const c = await client(server);
    const { member, topicId } = await shareGroupHolding(server, c, 'fg', 'fw');
    const sp = server.broker.shares.get('fg', topicId, 0)!;

    const hbRule = server.faults.add({ match: { api: 'ShareGroupHeartbeat', group: 'fg' }, action: { type: 'error', error: 'COORDINATOR_NOT_AVAILABLE' } });
    const hb = await c.send(76, 1, { groupId: 'fg', memberId: member, memberEpoch: 3, rackId: null, subscribedTopicNames: null });
    expect([hb.errorCode, hb.memberEpoch]).toEqual([ErrorCode.COORDINATOR_NOT_AVAILABLE, 0]);
    expect(hbRule.fired).toBe(1);
    expect((await c.send(76, 1, { groupId: 'fg', memberId: member, memberEpoch: 3, rackId: null, subscribedTopicNames: null })).errorCode).toBe(0);

    // An acknowledgement answered with an error by a rule is not applied.
    const ackReq = {
      groupId: 'fg', memberId: member, shareSessionEpoch: 1, isRenewAck: false,
      topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }] }] }],
    };
    server.faults.add({ match: { api: 'ShareAcknowledge', group: 'fg', topic: 'fw' }, action: { type: 'error', error: 'NOT_LEADER_OR_FOLLOWER' } });
    expect((await c.send(79, 2, ackReq)).errorCode).toBe(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    expect(sp.counts()).toEqual({ acquired: 5, available: 0, acknowledged: 0, archived: 0 });
    // The session epoch did not move either: the same acknowledgement at epoch 1 now applies.
    expect((await c.send(79, 2, ackReq)).responses[0]!.partitions[0]!.errorCode).toBe(0);
    expect(sp.spso).toBe(2n);

    // A lost answer: the acknowledgement is applied, then the connection closes without a
    // response (its share session ends with it: the member's other records are released).
    const lostClient = await client(server);
    const lostMember = (await shareGroupHolding(server, lostClient, 'lg', 'lw')).member;
    const lw = server.broker.topics.get('lw')!;
    server.faults.add({ match: { api: 'ShareAcknowledge', group: 'lg' }, action: { type: 'close', when: 'after' } });
    await expect(lostClient.send(79, 2, { ...ackReq, groupId: 'lg', memberId: lostMember, topics: [{ ...ackReq.topics[0]!, topicId: lw.id }] })).rejects.toThrow();
    const lost = server.broker.shares.get('lg', lw.id, 0)!;
    await waitFor(() => lost.counts().acquired === 0, 10_000, 'the closed session to release its records');
    expect([lost.spso, lost.counts()]).toEqual([2n, { acquired: 0, available: 3, acknowledged: 0, archived: 0 }]);

    // A ShareFetch delayed by a rule is answered after it, as usual.
    const delay = server.faults.add({ match: { api: 'ShareFetch', memberId: member }, action: { type: 'delay', ms: 50 } });
    const delayed = await c.send(78, 2, { ...fetchReq('fg', member, 2, topicId), topics: [{ topicId, partitions: [] }] });
    expect([delayed.errorCode, delay.fired]).toEqual([0, 1]);

    // A ShareFetch whose connection a rule closes before it is handled: not applied. The
    // connection's share session ends with it, releasing what the member held.
    server.faults.add({ match: { api: 'ShareFetch' }, action: { type: 'close', when: 'before' } });
    await expect(c.send(78, 2, fetchReq('fg', member, 3, topicId))).rejects.toThrow();
    expect(server.faults.requests({ api: 'ShareFetch' }).at(-1)!.outcome).toBe('closed');
    await waitFor(() => sp.counts().acquired === 0, 10_000, 'the closed session to release its records');
    expect(sp.counts()).toEqual({ acquired: 0, available: 3, acknowledged: 0, archived: 0 });
    expect(sp.spso).toBe(2n);
  });
});
