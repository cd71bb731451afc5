/** `GET /overview`: what the console's first page shows, in one answer. */
import type { Broker } from '../broker.js';
import { describeGroupHeader, eachGroupInSlices, totalLagOf } from './groups.js';

import type { Overview, OverviewGroup, OverviewTopic } from './views.js';

export type { Overview, OverviewGroup, OverviewTopic } from './views.js';

/** Groups are described in slices (`eachGroupInSlices`): ten thousand of them held the Kafka port 250 ms in one turn. */
export async function overview(broker: Broker, bootstrap: string, clock: { mode: string; now: () => number }): Promise<Overview> {
  // The console lists the user's topics; `__consumer_offsets` is the group coordinator's log.
  const topics = broker.topics.list().filter((t) => !t.internal).map((t): OverviewTopic => {
    const partitions = t.partitions.map((p) => ({
      partition: p.index,
      logStartOffset: Number(p.logStartOffset),
      logEndOffset: Number(p.logEndOffset),
      sizeBytes: p.log.sizeInBytes,
      leader: broker.cluster.leaderOf(t.name, p.index),
    }));
    return { name: t.name, topicId: t.topicId, partitions, sizeBytes: partitions.reduce((n, p) => n + p.sizeBytes, 0) };
  });
  const groups: OverviewGroup[] = [];
  await eachGroupInSlices(broker, (g) => {
    // The header and a sum: a group's offsets are not formatted for one number (36,000 of them took ~10 ms).
    const d = describeGroupHeader(broker, g.groupId);
    groups.push({
      groupId: g.groupId,
      type: g.type,
      state: g.state,
      protocolOrAssignor: d?.assignor ?? d?.protocol ?? null,
      members: g.members,
      totalLag: d === null ? 0 : totalLagOf(broker, g.groupId),
    });
  });
  return {
    clusterId: broker.clusterId,
    bootstrap,
    clock: { mode: clock.mode, now: new Date(clock.now()).toISOString() },
    brokers: broker.cluster.brokers(),
    topics,
    groups,
  };
}
