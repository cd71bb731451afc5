/**
 * Conformance: share groups (KIP-932), the record side — ShareFetch and ShareAcknowledge (share
 * sessions and their epochs, acquisition, delivery counts, ACCEPT/RELEASE/REJECT piggy-backed and
 * standalone, the final fetch) and the errors Kafka 4.3.1 answers, against the real broker.
 *
 * A share partition is initialized by the group coordinator after a member is assigned it, from
 * `share.auto.offset.reset` (latest): the script joins with ShareGroupHeartbeat, heartbeats
 * (unrecorded) until the assignment arrives, then produces, so both brokers deliver the same
 * records. Needs ShareGroupHeartbeat on our server (the group side of issue 14).
 */
import { describe } from 'vitest';
import { API_HANDLERS } from '../../src/apis/registry.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

/**
 * Sets `share.auto.offset.reset=earliest` on group `g`, joins it as `member` on `topic` and
 * heartbeats until it holds a partition (not recorded).
 */
async function joinAndWait(s: Session, g: string, member: string, topic: string): Promise<void> {
  const alter = await s.send(44, 1, { resources: [{ resourceType: 32, resourceName: g, configs: [{ name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' }] }], validateOnly: false } as never);
  if (alter.responses[0]!.errorCode !== 0) throw new Error(`${s.target}: could not set share.auto.offset.reset: ${alter.responses[0]!.errorCode}`);
  const deadline = Date.now() + 30_000;
  let r = await s.send(76, 1, { groupId: g, memberId: member, memberEpoch: 0, rackId: null, subscribedTopicNames: [topic] } as never);
  while (!r.assignment || r.assignment.topicPartitions.length === 0) {
    if (Date.now() > deadline) throw new Error(`${s.target}: ${member} never got a partition`);
    await sleep(100);
    r = await s.send(76, 1, { groupId: g, memberId: member, memberEpoch: r.memberEpoch, rackId: null, subscribedTopicNames: null } as never);
    if (r.errorCode !== 0) throw new Error(`${s.target}: heartbeat error ${r.errorCode}`);
  }
}

type Ack = { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] };

function fetch(g: string, member: string, epoch: number, topicId: string, acks: Ack[] = [], extra: Record<string, unknown> = {}): never {
  return {
    groupId: g, memberId: member, shareSessionEpoch: epoch, maxWaitMs: 5000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }],
    forgottenTopicsData: [],
    ...extra,
  } as never;
}

function acknowledge(g: string, member: string, epoch: number, topicId: string, acks: Ack[]): never {
  return { groupId: g, memberId: member, shareSessionEpoch: epoch, isRenewAck: false, topics: [{ topicId, partitions: [{ partitionIndex: 0, acknowledgementBatches: acks }] }] } as never;
}

/** A 1-partition topic and a share group `base` whose member A holds the partition, then `sizes` batches produced (values v0..). */
async function setup(s: Session, base: string, sizes: number[]): Promise<{ topicId: string; g: string; a: string }> {
  const topic = s.name(`${base}-t`);
  await s.createTopic(topic, 1);
  const g = s.name(base);
  const a = s.name('ma');
  s.alias(a, 'A');
  await joinAndWait(s, g, a, topic);
  let next = 0;
  for (const n of sizes) {
    const values = Array.from({ length: n }, () => next++);
    await s.produce(topic, 0, values.map((i) => ({ value: `v${i}`, timestamp: 1_700_000_000_000n + BigInt(i) })));
  }
  return { topicId: s.topicId(topic), g, a };
}

describe.skipIf(!API_HANDLERS.has(76))('ShareFetch / ShareAcknowledge', () => {
  scenario('acquire, accept, release (redelivered with delivery count 2), reject, standalone acknowledge, final fetch', async (s) => {
    const { topicId, g, a } = await setup(s, 'sf', [5, 2]);
    await s.call('first fetch: both batches acquired', 78, 2, fetch(g, a, 0, topicId));
    await s.call('fetch with acknowledgements: offset 2 comes back with delivery count 2', 78, 2, fetch(g, a, 1, topicId, [
      { firstOffset: 0n, lastOffset: 6n, acknowledgeTypes: [ACCEPT, ACCEPT, RELEASE, REJECT, ACCEPT, ACCEPT, ACCEPT] },
    ]));
    await s.call('acknowledging an accepted offset', 79, 2, acknowledge(g, a, 2, topicId, [{ firstOffset: 1n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }]));
    await s.call('standalone reject of offset 2', 79, 2, acknowledge(g, a, 3, topicId, [{ firstOffset: 2n, lastOffset: 2n, acknowledgeTypes: [REJECT] }]));
    await s.call('stale epoch', 79, 2, acknowledge(g, a, 3, topicId, []));
    await s.call('epoch 0 on ShareAcknowledge', 79, 2, acknowledge(g, a, 0, topicId, []));
    await s.call('final fetch', 78, 2, fetch(g, a, -1, topicId, [], { maxWaitMs: 0 }));
    await s.call('after the final fetch, the session is gone', 78, 2, fetch(g, a, 5, topicId, [], { maxWaitMs: 0 }));
  });

  scenario('a fetch carries every batch from the first acquired record to the last, one held by another member between them included', async (s) => {
    const { topicId, g, a } = await setup(s, 'sfs', [2, 2, 2]);
    const b = s.name('mb');
    s.alias(b, 'B');
    await joinAndWait(s, g, b, s.name('sfs-t'));
    await s.call('A takes the first batch', 78, 2, fetch(g, a, 0, topicId, [], { maxRecords: 2 }));
    await s.call('B takes the second', 78, 2, fetch(g, b, 0, topicId, [], { maxRecords: 2 }), 'b');
    await s.call('A releases its batch', 79, 2, acknowledge(g, a, 1, topicId, [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [RELEASE] }]));
    await s.call('A takes 0-1 again and 4-5: all three batches sent', 78, 2, fetch(g, a, 2, topicId));
  });

  scenario('session errors and malformed acknowledgements', async (s) => {
    const { topicId, g, a } = await setup(s, 'se', [3]);
    await s.call('incremental fetch without a session', 78, 2, fetch(g, a, 1, topicId, [], { maxWaitMs: 0 }));
    await s.call('acknowledgements in an initial fetch', 78, 2, fetch(g, a, 0, topicId, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }], { maxWaitMs: 0 }));
    await s.call('member id of 37 characters', 78, 2, fetch(g, 'm'.repeat(37), 0, topicId, [], { maxWaitMs: 0 }));
    await s.call('first fetch', 78, 2, fetch(g, a, 0, topicId));
    await s.call('wrong epoch', 78, 2, fetch(g, a, 4, topicId, [], { maxWaitMs: 0 }));
    await s.call('first offset after last', 79, 2, acknowledge(g, a, 1, topicId, [{ firstOffset: 2n, lastOffset: 1n, acknowledgeTypes: [ACCEPT] }]));
    await s.call('one type per offset, wrong count', 79, 2, acknowledge(g, a, 2, topicId, [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT, REJECT] }]));
    await s.call('unknown acknowledge type', 79, 2, acknowledge(g, a, 3, topicId, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [7] }]));
    await s.call('RENEW without IsRenewAck', 79, 2, acknowledge(g, a, 4, topicId, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [4] }]));
    await s.call('past the acquired records', 79, 2, acknowledge(g, a, 5, topicId, [{ firstOffset: 5n, lastOffset: 6n, acknowledgeTypes: [ACCEPT] }]));
    const b = s.name('mb');
    s.alias(b, 'B');
    await s.call('another member acknowledging A\'s records', 79, 2, acknowledge(g, b, 1, topicId, [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [ACCEPT] }]), 'b');
    await s.call('renew-only fetch with limits', 78, 2, fetch(g, a, 6, topicId, [], { isRenewAck: true }));
    await s.call('accept all', 79, 2, acknowledge(g, a, 6, topicId, [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [ACCEPT] }]));
  });
});
