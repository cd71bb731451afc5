/**
 * What the admin API describes, asked in-process (`server.describeGroup`, `server.describeTransaction`)
 * without starting the admin API: the same answers as `GET /groups/{id}` and
 * `GET /transactions/{id}` (a manual clock, so the session deadlines read the same both ways).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic, initProducer } from '../support/raw-transactions.js';
import { KIP848_CONFIG, hb } from '../support/kip848-group.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return res.json();
}

describe('in-process views', () => {
  it('describeGroup and describeTransaction answer what the admin API answers', async () => {
    const server = await startTestServer({ adminPort: 0, clock: 'manual', config: KIP848_CONFIG });
    cleanups.push(() => server.stop());
    const raw = await RawClient.connect(server.port);
    cleanups.push(() => void raw.socket.destroy());
    await createTopic(raw, 'views', 2);

    // A KIP-848 member that owns both partitions and commits one offset.
    const G = 'views-group';
    const joined = await raw.send(68, 1, hb(G, 'views-member', 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: ['views'], topicPartitions: [] }));
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const commit = await raw.send(8, 9, {
      groupId: G, generationIdOrMemberEpoch: joined.memberEpoch, memberId: 'views-member', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'views', topicId: ZERO_UUID, partitions: [{ partitionIndex: 1, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: 'm' }] }],
    });
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);

    const group = await server.describeGroup(G);
    expect(group).toMatchObject({ groupId: G, type: 'consumer', state: 'Stable', groupEpoch: joined.memberEpoch, assignor: 'uniform' });
    expect(group!.members.map((m) => [m.memberId, m.memberEpoch, m.sessionExpiresInMs, m.assignment])).toEqual([['views-member', joined.memberEpoch, 45000, [{ topic: 'views', partitions: [0, 1] }]]]);
    expect(group!.offsets.map((o) => [o.topic, o.partition, o.committedOffset, o.metadata, o.memberId])).toEqual([['views', 1, 0, 'm', 'views-member']]);
    expect(await getJson(`${server.admin!.url}/groups/${G}`)).toEqual(JSON.parse(JSON.stringify(group)));
    expect(await server.describeGroup('no-such-group')).toBeNull();

    const producer = await initProducer(raw, 'views-txn');
    const added = await raw.send(24, 3, { v3AndBelowTransactionalId: 'views-txn', v3AndBelowProducerId: producer.producerId, v3AndBelowProducerEpoch: producer.producerEpoch, v3AndBelowTopics: [{ name: 'views', partitions: [0] }], transactions: [] });
    expect(added.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode).toBe(ErrorCode.NONE);
    const txn = server.describeTransaction('views-txn');
    expect(txn).toMatchObject({ transactionalId: 'views-txn', state: 'Ongoing', producerId: Number(producer.producerId), producerEpoch: producer.producerEpoch });
    expect(await getJson(`${server.admin!.url}/transactions/views-txn`)).toEqual(JSON.parse(JSON.stringify(txn)));
    expect(server.describeTransaction('no-such-txn')).toBeNull();
  });
});
