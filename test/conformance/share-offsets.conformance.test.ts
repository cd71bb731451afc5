/**
 * Conformance: the share-group offset APIs (KIP-932) — DescribeShareGroupOffsets (90),
 * AlterShareGroupOffsets (91) and DeleteShareGroupOffsets (92) — against the real broker: their
 * errors (invalid, missing and foreign group ids, a group with members, unknown topics and
 * partitions) with Kafka's messages, and the offsets a member sees after each: the start offset
 * the share coordinator keeps once records are acknowledged (the one written with the last
 * acknowledgement, before the start offset moved past it), an altered start offset the next member
 * fetches from, and a deleted state that the next member starts from `share.auto.offset.reset`.
 *
 * Kafka initializes share partitions asynchronously: members heartbeat (unrecorded) until they
 * hold the partition; describes after an alter name their topics (Kafka records the altered
 * partitions as initialized just after it answers).
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';
import { hb as consumerHeartbeat } from '../support/kip848-group.js';

useTargets();

const ACCEPT = 1;

const hb = (groupId: string, memberId: string, memberEpoch: number, topics: string[] | null = null): never =>
  ({ groupId, memberId, memberEpoch, rackId: null, subscribedTopicNames: topics }) as never;

/** `member` joins `g` on `topic` and heartbeats until it holds a partition (not recorded). */
async function join(s: Session, g: string, member: string, topic: string, conn = 'main'): Promise<void> {
  const deadline = Date.now() + 30_000;
  let r = await s.send(76, 1, hb(g, member, 0, [topic]), conn);
  while (!r.assignment || r.assignment.topicPartitions.length === 0) {
    if (Date.now() > deadline) throw new Error(`${s.target}: ${member} never got a partition`);
    if (r.errorCode !== 0) throw new Error(`${s.target}: heartbeat error ${r.errorCode} ${r.errorMessage}`);
    await sleep(100);
    r = await s.send(76, 1, hb(g, member, r.memberEpoch), conn);
  }
}

function fetch(g: string, member: string, epoch: number, topicId: string, acks: Array<{ firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }> = []): never {
  return {
    groupId: g, memberId: member, shareSessionEpoch: epoch, maxWaitMs: epoch === -1 ? 0 : 3000, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
    shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: acks }] }],
    forgottenTopicsData: [],
  } as never;
}

/**
 * `member` joins and fetches (after its first fetch `thenProduce` records are produced and it
 * fetches again); what it acquired is recorded as `label`; it accepts it all with its final fetch,
 * leaves and disconnects: once no connection of the group's consumers is left, the broker drops
 * the group's share partitions (Kafka's `onGroupEmpty`), so the next member reads the share
 * coordinator's state. (Whether a member that joins at once still gets the share partition as it
 * was depends, on Kafka, on when its broker has handled the disconnects: not compared here;
 * test/e2e/share-offsets-admin.test.ts covers it on ours.)
 */
async function consume(s: Session, label: string, g: string, member: string, topic: string, thenProduce: Array<{ value: string; timestamp: bigint }> = []): Promise<void> {
  await join(s, g, member, topic, member);
  const topicId = s.topicId(topic);
  const acquired = async (epoch: number) => (await s.send(78, 2, fetch(g, member, epoch, topicId), member)).responses[0]?.partitions[0]?.acquiredRecords ?? [];
  let epoch = 0;
  const got = await acquired(epoch++);
  if (thenProduce.length > 0) {
    await s.produce(topic, 0, thenProduce);
    got.push(...(await acquired(epoch++)));
  } else {
    // Records are there already: Kafka loads the share partition's (altered) state asynchronously,
    // and on a loaded machine its 3 s fetch can end first with nothing acquired; fetch again.
    const deadline = Date.now() + 30_000;
    while (got.length === 0 && Date.now() < deadline) got.push(...(await acquired(epoch++)));
  }
  s.record(label, got);
  const acks = got.map((r) => ({ firstOffset: r.firstOffset, lastOffset: r.lastOffset, acknowledgeTypes: [ACCEPT] }));
  const last = await s.send(78, 2, fetch(g, member, -1, topicId, acks), member);
  s.record(`${label}: acknowledged`, last.responses.map((t) => t.partitions.map((p) => [p.errorCode, p.acknowledgeErrorCode])));
  const left = await s.send(76, 1, hb(g, member, -1), member);
  if (left.errorCode !== 0) throw new Error(`${s.target}: leave error ${left.errorCode}`);
  (await s.conn(member)).socket.destroy();
}

const describeOffsets = (s: Session, label: string, g: string, topics: Array<{ topicName: string; partitions: number[] }> | null) =>
  s.call(label, 90, 1, { groups: [{ groupId: g, topics }] } as never);
const alter = (s: Session, label: string, g: string, topics: Array<{ topicName: string; partitions: Array<[number, bigint]> }>) =>
  s.call(label, 91, 0, { groupId: g, topics: topics.map((t) => ({ topicName: t.topicName, partitions: t.partitions.map(([partitionIndex, startOffset]) => ({ partitionIndex, startOffset })) })) } as never);
const del = (s: Session, label: string, g: string, topics: string[]) => s.call(label, 92, 0, { groupId: g, topics: topics.map((topicName) => ({ topicName })) } as never);

describe('share-group offsets (90-92)', () => {
  scenario(
    'errors: invalid, missing and foreign groups, a group with members, unknown topics and partitions',
    async (s) => {
      const topic = s.name('oe-t');
      await s.createTopic(topic, 1);
      const missing = s.name('no-such-topic');
      await alter(s, 'alter with an empty group id', '', [{ topicName: topic, partitions: [[0, 0n]] }]);
      await del(s, 'delete with an empty group id', '', [topic]);
      await del(s, 'delete for a missing group', s.name('nobody'), [topic]);
      await describeOffsets(s, 'describe a missing group (all topics)', s.name('nobody'), null);
      await describeOffsets(s, 'describe a missing group (a missing topic)', s.name('nobody'), [{ topicName: missing, partitions: [0] }]);
      const fresh = s.name('fresh');
      await alter(s, 'alter a missing group with only an unknown topic', fresh, [{ topicName: missing, partitions: [[0, 0n], [1, 0n]] }]);
      await s.call('no group was created', 77, 1, { groupIds: [fresh], includeAuthorizedOperations: false } as never);

      const cg = s.name('cg');
      await s.send(68, 1, consumerHeartbeat(cg, s.name('mc'), 0, { rebalanceTimeoutMs: 30000, subscribedTopicNames: [topic], topicPartitions: [] }) as never);
      await alter(s, 'alter a consumer group', cg, [{ topicName: topic, partitions: [[0, 0n]] }]);
      await del(s, 'delete offsets of a consumer group', cg, [topic]);

      const g = s.name('busy');
      const a = s.name('ma');
      s.alias(a, 'A');
      await join(s, g, a, topic);
      await alter(s, 'alter a group with a member', g, [{ topicName: topic, partitions: [[0, 0n]] }]);
      await del(s, 'delete offsets of a group with a member', g, [topic]);
      await s.call('A leaves', 76, 1, hb(g, a, -1));
      const other = s.name('oe-other');
      await s.createTopic(other, 1);
      await del(s, 'delete: an unknown topic, a topic without share state', g, [missing, other]);
    },
    { exactMessages: true },
  );

  scenario(
    'describe after acknowledgements, alter (the next member fetches from there), delete (the next starts from latest)',
    async (s) => {
      const topic = s.name('oa-t');
      await s.createTopic(topic, 1);
      const missing = s.name('no-such-topic');
      const g = s.name('oa');
      const values = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ value: `v${from + i}`, timestamp: 1_700_000_000_000n + BigInt(from + i) }));
      await s.produce(topic, 0, values(0, 5));
      await consume(s, 'A (share.auto.offset.reset latest) gets what is produced after it joined', g, s.name('ma'), topic, values(5, 3));
      await describeOffsets(s, 'describe (all topics): the start offset written with the last acknowledgement', g, null);
      // (A partition past the topic's count is left out: Kafka 4.3.1's persister does not answer
      // its ReadShareGroupStateSummary within the client's 15 s.)
      await describeOffsets(s, 'describe (named, and a missing topic)', g, [{ topicName: topic, partitions: [0] }, { topicName: missing, partitions: [0] }]);
      await alter(s, 'alter to 2, a partition past the count, an unknown topic', g, [{ topicName: topic, partitions: [[0, 2n], [3, 0n]] }, { topicName: missing, partitions: [[0, 1n]] }]);
      await describeOffsets(s, 'describe after the alter', g, [{ topicName: topic, partitions: [0] }]);
      await consume(s, 'B fetches from the altered offset', g, s.name('mb'), topic);

      await del(s, 'delete offsets: the topic and an unknown one', g, [topic, missing]);
      await describeOffsets(s, 'describe after the delete (all topics)', g, null);
      await describeOffsets(s, 'describe after the delete (named)', g, [{ topicName: topic, partitions: [0] }]);
      await del(s, 'delete again', g, [topic]);
      await consume(s, 'C starts from latest again', g, s.name('mc'), topic, values(8, 2));
    },
    { exactMessages: true },
  );

});
