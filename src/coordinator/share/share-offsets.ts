/**
 * DescribeShareGroupOffsets for one group (KIP-932), as Kafka 4.3's
 * `GroupCoordinatorService.describeShareGroupOffsets` / `describeShareGroupAllOffsets` and
 * `computeShareGroupLagAndBuildResponse`: the share-partition start offsets come from the share
 * state (the persister's ReadShareGroupStateSummary), not from the group; with no topics named,
 * the group's initialized partitions (record 15) are described. The lag (v1) is the partition's
 * latest offset minus the start offset minus the records delivered completely beyond it, or -1
 * when the state does not say. A topic that does not exist answers its partitions with start
 * offset -1 and the zero topic id, after the others.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/primitives.js';
import type { DescribeShareGroupOffsetsRequestGroup } from '../../protocol/messages/DescribeShareGroupOffsetsRequest.js';
import type { DescribeShareGroupOffsetsResponseGroup, DescribeShareGroupOffsetsResponsePartition, DescribeShareGroupOffsetsResponseTopic } from '../../protocol/messages/DescribeShareGroupOffsetsResponse.js';
import type { PersisterSummary, SharePersister } from '../../share/persister.js';

export interface ShareOffsetsSource {
  readonly persister: SharePersister;
  topicByName(name: string): { topicId: string; name: string } | undefined;
  topicNameById(topicId: string): string | undefined;
  /** The group's initialized share partitions (record 15), topicId -> partitions; empty for no group. */
  initializedPartitions(groupId: string): ReadonlyMap<string, ReadonlySet<number>>;
  /** The partition's latest offset (ListOffsets latest: the high watermark), or null when unknown. */
  latestOffset(topicName: string, partition: number): bigint | null;
}

export async function describeShareGroupOffsets(src: ShareOffsetsSource, req: DescribeShareGroupOffsetsRequestGroup): Promise<DescribeShareGroupOffsetsResponseGroup> {
  const names = new Map<string, string>();
  const wanted: Array<{ topicId: string; partition: number; leaderEpoch: number }> = [];
  const missing: DescribeShareGroupOffsetsResponseTopic[] = [];
  if (req.topics === null) {
    for (const [topicId, parts] of src.initializedPartitions(req.groupId)) {
      const name = src.topicNameById(topicId);
      if (name === undefined) continue;
      names.set(topicId, name);
      for (const partition of [...parts].sort((a, b) => a - b)) wanted.push({ topicId, partition, leaderEpoch: -1 });
    }
  } else {
    for (const t of req.topics) {
      const topic = src.topicByName(t.topicName);
      if (!topic) {
        missing.push({ topicName: t.topicName, topicId: ZERO_UUID, partitions: t.partitions.map((p) => partitionAnswer(p, -1n, 0, -1n)) });
        continue;
      }
      names.set(topic.topicId, t.topicName);
      for (const partition of t.partitions) wanted.push({ topicId: topic.topicId, partition, leaderEpoch: -1 });
    }
  }
  const group: DescribeShareGroupOffsetsResponseGroup = { groupId: req.groupId, topics: [], errorCode: ErrorCode.NONE, errorMessage: null };
  if (wanted.length === 0) return { ...group, topics: missing };
  let summaries: PersisterSummary[];
  try {
    summaries = await src.persister.readStateSummary(req.groupId, wanted);
  } catch (err) {
    return { ...group, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (err as Error).message };
  }
  const byTopic = new Map<string, DescribeShareGroupOffsetsResponseTopic>();
  for (const s of summaries) {
    const topicName = names.get(s.topicId) ?? '';
    let topic = byTopic.get(s.topicId);
    if (!topic) byTopic.set(s.topicId, (topic = { topicName, topicId: s.topicId, partitions: [] }));
    const ok = s.errorCode === ErrorCode.NONE;
    if (!ok || s.startOffset === -1n || s.deliveryCompleteCount === -1) {
      topic.partitions.push(partitionAnswer(s.partition, ok ? s.startOffset : -1n, ok ? s.leaderEpoch : 0, -1n));
      continue;
    }
    const latest = src.latestOffset(topicName, s.partition);
    if (latest === null) {
      topic.partitions.push({ ...partitionAnswer(s.partition, 0n, 0, -1n), errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' });
      continue;
    }
    topic.partitions.push(partitionAnswer(s.partition, s.startOffset, s.leaderEpoch, latest - s.startOffset - BigInt(s.deliveryCompleteCount)));
  }
  return { ...group, topics: [...byTopic.values(), ...missing] };
}

function partitionAnswer(partitionIndex: number, startOffset: bigint, leaderEpoch: number, lag: bigint): DescribeShareGroupOffsetsResponsePartition {
  return { partitionIndex, startOffset, leaderEpoch, lag, errorCode: ErrorCode.NONE, errorMessage: null };
}
