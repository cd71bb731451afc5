/** `GET /overview`: what the console's first page shows, in one answer. */
import type { Broker } from '../broker.js';
import { nextTurn, sliceBudgetSpent, Slicer } from '../util/slices.js';
import { describeGroupHeader, groupsKnownNow, totalLagOf } from './groups.js';
import { LazyArray } from './json-in-slices.js';

import type { Overview, OverviewGroup, OverviewTopic } from './views.js';

export type { Overview, OverviewGroup, OverviewTopic } from './views.js';

/** An `Overview` whose groups are described as `sendJsonInSlices` writes them. */
export type OverviewAnswer = Omit<Overview, 'groups'> & { groups: LazyArray<string> };

/** Partitions the overview describes per turn of the event loop at most (or the turn's SLICE_BUDGET_MS). */
export const OVERVIEW_PARTITIONS_PER_SLICE = 1024;

/**
 * The topics' partitions are described in slices, and the groups as the answer is written
 * (`LazyArray`: ten thousand of them described in one turn held the Kafka port 250 ms; made whole
 * before they were written, an answer a client stopped reading held them all); the answer is
 * handed on in a turn with budget left: fifty overviews of a 9,000-partition topic asked at once,
 * built and serialized back to back, held the Kafka port 190-330 ms (adversarial trial, session 23).
 */
export async function overview(broker: Broker, bootstrap: string, clock: { mode: string; now: () => number }, gone: () => boolean = () => false): Promise<OverviewAnswer> {
  while (sliceBudgetSpent()) await nextTurn();
  // The console lists the user's topics; `__consumer_offsets` is the group coordinator's log.
  const topics: OverviewTopic[] = [];
  const slicer = new Slicer(OVERVIEW_PARTITIONS_PER_SLICE, 64);
  for (const t of broker.topics.list()) {
    if (t.internal) continue;
    const partitions: OverviewTopic['partitions'] = [];
    let gone = false;
    for (const p of t.partitions) {
      if (slicer.due()) {
        await nextTurn();
        // Deleted between slices: left out, as a later look would leave it.
        if ((gone = broker.topics.get(t.name) !== t)) break;
      }
      partitions.push({
        partition: p.index,
        logStartOffset: Number(p.logStartOffset),
        logEndOffset: Number(p.logEndOffset),
        sizeBytes: p.log.sizeInBytes,
        leader: broker.cluster.leaderOf(t.name, p.index),
      });
    }
    if (!gone) topics.push({ name: t.name, topicId: t.topicId, partitions, sizeBytes: partitions.reduce((n, p) => n + p.sizeBytes, 0) });
  }
  const known = await groupsKnownNow(broker, gone);
  // Each group described as its piece of the answer is written (`LazyArray`).
  const groups = new LazyArray(known.ids, (groupId): OverviewGroup | undefined => {
    const g = known.summary(groupId);
    if (!g) return undefined;
    // The header and a sum: a group's offsets are not formatted for one number (36,000 of them took ~10 ms).
    const d = describeGroupHeader(broker, groupId);
    return { groupId, type: g.type, state: g.state, protocolOrAssignor: d?.assignor ?? d?.protocol ?? null, members: g.members, totalLag: d === null ? 0 : totalLagOf(broker, groupId) };
  });
  while (sliceBudgetSpent()) await nextTurn();
  return {
    clusterId: broker.clusterId,
    bootstrap,
    clock: { mode: clock.mode, now: new Date(clock.now()).toISOString() },
    brokers: broker.cluster.brokers(),
    topics,
    groups,
  };
}
