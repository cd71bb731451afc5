/**
 * Share groups as the views show them: `__share_group_state` in Metadata as Kafka 4.3 lists it (an
 * internal topic, Kafka's `Topic.INTERNAL_TOPICS`, with `share.coordinator.state.topic.num.partitions`
 * partitions, from its creation on the first share-coordinator lookup, and after a restart); the
 * admin API's groups view of a share group (members, assignments, in-flight and archived records
 * per share partition); fault rules on ShareGroupHeartbeat, ShareFetch and ShareAcknowledge.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import type { ServerHandle } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function client(server: ServerHandle): Promise<RawClient> {
  const c = await RawClient.connect(server.port);
  cleanups.push(() => void c.socket.destroy());
  return c;
}

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
    expect(await allTopics(c)).toEqual([['__consumer_offsets', true, 50], ['sv', false, 2]]);
    // By name before it exists: not auto-created as a user topic.
    const byName = await c.send(3, 12, { topics: [{ name: '__share_group_state', topicId: ZERO_UUID }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(byName.topics[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);

    const found = await c.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [`g:${topic.id}:0`] });
    expect(found.coordinators[0]!.errorCode).toBe(ErrorCode.NONE);
    const listed: Array<[string, boolean, number]> = [['__consumer_offsets', true, 50], ['__share_group_state', true, 3], ['sv', false, 2]];
    expect(await allTopics(c)).toEqual(listed);
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
    const { server } = await startClosableServer(cleanups, {}, 'kmc-share-views-');
    const topic = server.broker.topics.create('sv2', 1);
    const c = await client(server);
    expect((await allTopics(c)).map(([name]) => name)).toEqual(['__consumer_offsets', 'sv2']);
    // What the share group coordinator does once a member is assigned the partition.
    await server.broker.sharePersister.initializeState('g', [{ topicId: topic.id, partition: 0, stateEpoch: 0, startOffset: 0n }]);
    expect(await allTopics(c)).toEqual([['__consumer_offsets', true, 50], ['__share_group_state', true, 50], ['sv2', false, 1]]);
  });
});
