/**
 * The subscription-change path of Kafka 4.3's CurrentAssignmentBuilder (`withHasSubscriptionChanged`,
 * `subscribedTopicIds()`, `updateCurrentAssignment`, and the subscription filter in
 * `computeNextAssignment`). Inputs and expected outcomes follow Kafka's CurrentAssignmentBuilderTest
 * cases (…WithAssignmentTopicsNoLongerInSubscription, …UnresolvedRegularExpression), with
 * KIP-1251 assignment epochs added: kept and pending partitions keep the epoch they were assigned at.
 */
import { describe, expect, it } from 'vitest';
import { reconcile, type OwnedTopicPartitions, type ReconcileInput } from '../../../src/coordinator/consumer/current-assignment-builder.js';
import { MemberState, newMember, type ConsumerGroupMember, type MemberStateValue } from '../../../src/coordinator/consumer/member.js';
import type { Assignment, EpochAssignment } from '../../../src/coordinator/consumer/assignment.js';

const T1 = 'AAAAAAAAAAAAAAAAAAAAAQ';
const T2 = 'AAAAAAAAAAAAAAAAAAAAAg';

/** topic id -> [partition, assignment epoch][] */
type Epochs = Record<string, Array<[number, number]>>;

const epochs = (e: Epochs): EpochAssignment => new Map(Object.entries(e).map(([t, parts]) => [t, new Map(parts)]));
const target = (t: Record<string, number[]>): Assignment => new Map(Object.entries(t).map(([id, parts]) => [id, new Set(parts)]));
const owned = (o: Record<string, number[]>): OwnedTopicPartitions[] => Object.entries(o).map(([topicId, partitions]) => ({ topicId, partitions }));

/** Plain, order-independent view of an epoch assignment for comparisons. */
function view(a: EpochAssignment): Epochs {
  const out: Epochs = {};
  for (const [t, parts] of [...a].sort(([x], [y]) => x.localeCompare(y))) {
    if (parts.size > 0) out[t] = [...parts].sort(([x], [y]) => x - y);
  }
  return out;
}

function member(state: MemberStateValue, epoch: number, prev: number, assigned: Epochs, pending: Epochs = {}): ConsumerGroupMember {
  return { ...newMember('m'), state, memberEpoch: epoch, previousMemberEpoch: prev, assigned: epochs(assigned), pendingRevocation: epochs(pending) };
}

function expectMember(
  m: ConsumerGroupMember,
  want: { state: MemberStateValue; epoch: number; prev: number; assigned: Epochs; pending: Epochs },
): void {
  expect({ state: m.state, epoch: m.memberEpoch, prev: m.previousMemberEpoch, assigned: view(m.assigned), pending: view(m.pendingRevocation) }).toEqual(want);
}

const free = () => -1;

describe('CurrentAssignmentBuilder: subscription changes (Kafka 4.3)', () => {
  // The member held T1 p1-3 (assigned at epoch 8) and T2 p4-6 (epoch 9) and now subscribes to T2 only.
  const holdsBoth = () => member(MemberState.STABLE, 10, 10, { [T1]: [[1, 8], [2, 8], [3, 8]], [T2]: [[4, 9], [5, 9], [6, 9]] });
  const oldTarget = target({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] });
  const onlyT2 = new Set([T2]);

  it('STABLE at the target epoch: unsubscribed partitions go to pending revocation at once', () => {
    const r = reconcile({
      member: holdsBoth(), targetEpoch: 10, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: true,
    });
    expectMember(r, {
      state: MemberState.UNREVOKED_PARTITIONS, epoch: 10, prev: 10,
      assigned: { [T2]: [[4, 9], [5, 9], [6, 9]] },
      pending: { [T1]: [[1, 8], [2, 8], [3, 8]] },
    });
  });

  it('also revokes them when the member did not report what it owns', () => {
    const r = reconcile({
      member: holdsBoth(), targetEpoch: 10, target: oldTarget, currentPartitionEpoch: free,
      owned: null, subscribedTopicIds: onlyT2, hasSubscriptionChanged: true,
    });
    expect(r.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(view(r.pendingRevocation)).toEqual({ [T1]: [[1, 8], [2, 8], [3, 8]] });
  });

  it('drops them without a revocation round when the member already released them', () => {
    const m = member(MemberState.STABLE, 10, 9, { [T1]: [[1, 8], [2, 8], [3, 8]], [T2]: [[4, 9], [5, 9], [6, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 10, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: true,
    });
    // Kafka's updateMemberEpoch(memberEpoch): the previous epoch becomes the current one.
    expectMember(r, { state: MemberState.STABLE, epoch: 10, prev: 10, assigned: { [T2]: [[4, 9], [5, 9], [6, 9]] }, pending: {} });
  });

  it('without a subscription change a STABLE member at the target epoch is left alone', () => {
    const m = holdsBoth();
    const r = reconcile({
      member: m, targetEpoch: 10, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: false,
    });
    expect(r).toBe(m);
  });

  it('a subscription change that removes no assigned topic leaves the member unchanged', () => {
    const m = holdsBoth();
    const r = reconcile({
      member: m, targetEpoch: 10, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: new Set([T1, T2]), hasSubscriptionChanged: true,
    });
    expect(r).toBe(m);
  });

  it.each([false, true])('moving to a newer target ignores its partitions of unsubscribed topics (hasSubscriptionChanged=%s)', (changed) => {
    // Member no longer owns T1: it goes straight to the new epoch with T2 only.
    const released = reconcile({
      member: holdsBoth(), targetEpoch: 11, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: changed,
    });
    expectMember(released, { state: MemberState.STABLE, epoch: 11, prev: 10, assigned: { [T2]: [[4, 9], [5, 9], [6, 9]] }, pending: {} });

    // Member still owns T1: it stays at its epoch and must revoke T1.
    const owning = reconcile({
      member: holdsBoth(), targetEpoch: 11, target: oldTarget, currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: changed,
    });
    expectMember(owning, {
      state: MemberState.UNREVOKED_PARTITIONS, epoch: 10, prev: 10,
      assigned: { [T2]: [[4, 9], [5, 9], [6, 9]] },
      pending: { [T1]: [[1, 8], [2, 8], [3, 8]] },
    });
  });

  it('free target partitions of an unsubscribed topic are not assigned', () => {
    const m = member(MemberState.STABLE, 10, 9, { [T2]: [[4, 9], [5, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 11, target: target({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), currentPartitionEpoch: free,
      owned: owned({ [T2]: [4, 5] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: false,
    });
    expectMember(r, { state: MemberState.STABLE, epoch: 11, prev: 10, assigned: { [T2]: [[4, 9], [5, 9], [6, 11]] }, pending: {} });
  });

  it('an unsubscribed topic whose partitions are held elsewhere does not make the member UNRELEASED', () => {
    const m = member(MemberState.STABLE, 10, 9, { [T2]: [[4, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 11, target: target({ [T1]: [1], [T2]: [4] }), currentPartitionEpoch: (t) => (t === T1 ? 10 : -1),
      owned: owned({ [T2]: [4] }), subscribedTopicIds: onlyT2,
    });
    expectMember(r, { state: MemberState.STABLE, epoch: 11, prev: 10, assigned: { [T2]: [[4, 9]] }, pending: {} });
  });

  it('UNREVOKED_PARTITIONS still owning its revocations: unsubscribed partitions join the pending set', () => {
    const m = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { [T1]: [[2, 8], [3, 8]], [T2]: [[5, 9], [6, 9]] }, { [T1]: [[1, 8]], [T2]: [[4, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 12, target: target({ [T1]: [1, 3, 4], [T2]: [6, 7] }), currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: true,
    });
    expectMember(r, {
      state: MemberState.UNREVOKED_PARTITIONS, epoch: 10, prev: 10,
      assigned: { [T2]: [[5, 9], [6, 9]] },
      pending: { [T1]: [[1, 8], [2, 8], [3, 8]], [T2]: [[4, 9]] },
    });
  });

  it('UNREVOKED_PARTITIONS without a subscription change keeps waiting unchanged', () => {
    const m = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { [T1]: [[2, 8], [3, 8]], [T2]: [[5, 9], [6, 9]] }, { [T1]: [[1, 8]], [T2]: [[4, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 12, target: target({ [T1]: [1, 3, 4], [T2]: [6, 7] }), currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), subscribedTopicIds: onlyT2, hasSubscriptionChanged: false,
    });
    expect(r).toBe(m);
  });

  it('names plus an unresolved regex: only the named topic stays (ids of the names only)', () => {
    const m = member(MemberState.STABLE, 10, 10, { [T1]: [[1, 10], [2, 10], [3, 10]], [T2]: [[4, 10], [5, 10], [6, 10]] });
    const input: ReconcileInput = {
      member: m, targetEpoch: 10, target: target({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), currentPartitionEpoch: free,
      owned: owned({ [T1]: [1, 2, 3], [T2]: [4, 5, 6] }), hasSubscriptionChanged: true,
    };
    expectMember(reconcile({ ...input, subscribedTopicIds: new Set([T1]) }), {
      state: MemberState.UNREVOKED_PARTITIONS, epoch: 10, prev: 10,
      assigned: { [T1]: [[1, 10], [2, 10], [3, 10]] },
      pending: { [T2]: [[4, 10], [5, 10], [6, 10]] },
    });
    // Regex only, unresolved: nothing subscribed, everything is revoked.
    expectMember(reconcile({ ...input, subscribedTopicIds: new Set() }), {
      state: MemberState.UNREVOKED_PARTITIONS, epoch: 10, prev: 10,
      assigned: {},
      pending: { [T1]: [[1, 10], [2, 10], [3, 10]], [T2]: [[4, 10], [5, 10], [6, 10]] },
    });
    // Regex resolved to T2, names T1: nothing to remove.
    expect(reconcile({ ...input, subscribedTopicIds: new Set([T1, T2]) })).toBe(m);
  });

  it('an empty subscription with nothing assigned: a fresh member is unchanged, otherwise the epochs are rewritten (as Kafka)', () => {
    const fresh = { ...newMember('m'), memberEpoch: 10, previousMemberEpoch: 9 };
    const base = { targetEpoch: 10, target: target({}), currentPartitionEpoch: free, owned: owned({}), subscribedTopicIds: new Set<string>(), hasSubscriptionChanged: true };
    expect(reconcile({ ...base, member: fresh })).toBe(fresh);
    const emptied = member(MemberState.STABLE, 10, 9, {});
    expectMember(reconcile({ ...base, member: emptied }), { state: MemberState.STABLE, epoch: 10, prev: 10, assigned: {}, pending: {} });
  });

  it('re-subscribing before the revocation completed: revoke first, then get the partitions back at the target epoch', () => {
    // Unsubscribed from T1 at epoch 10 (T1 pending revocation); re-subscribes while still owning T1.
    const m = member(MemberState.UNREVOKED_PARTITIONS, 10, 10, { [T2]: [[4, 9]] }, { [T1]: [[1, 8]] });
    const tgt = target({ [T1]: [1], [T2]: [4] });
    const both = new Set([T1, T2]);
    const ownT1 = (t: string, p: number) => (t === T1 && p === 1 ? 10 : -1); // still held by this member
    const step1 = reconcile({
      member: m, targetEpoch: 10, target: tgt, currentPartitionEpoch: ownT1,
      owned: owned({ [T1]: [1], [T2]: [4] }), subscribedTopicIds: both, hasSubscriptionChanged: true,
    });
    expect(step1).toBe(m);
    const step2 = reconcile({
      member: step1, targetEpoch: 10, target: tgt, currentPartitionEpoch: ownT1,
      owned: owned({ [T2]: [4] }), subscribedTopicIds: both, hasSubscriptionChanged: false,
    });
    expectMember(step2, { state: MemberState.STABLE, epoch: 10, prev: 10, assigned: { [T1]: [[1, 10]], [T2]: [[4, 9]] }, pending: {} });
  });

  it('re-subscribing a dropped topic: nothing changes at the same epoch, the next target brings it back', () => {
    const m = member(MemberState.STABLE, 10, 10, { [T2]: [[4, 9]] });
    const both = new Set([T1, T2]);
    const same = reconcile({
      member: m, targetEpoch: 10, target: target({ [T2]: [4] }), currentPartitionEpoch: free,
      owned: owned({ [T2]: [4] }), subscribedTopicIds: both, hasSubscriptionChanged: true,
    });
    expect(same).toBe(m);
    const next = reconcile({
      member: m, targetEpoch: 11, target: target({ [T1]: [1, 2], [T2]: [4] }), currentPartitionEpoch: free,
      owned: owned({ [T2]: [4] }), subscribedTopicIds: both,
    });
    expectMember(next, { state: MemberState.STABLE, epoch: 11, prev: 10, assigned: { [T1]: [[1, 11], [2, 11]], [T2]: [[4, 9]] }, pending: {} });
  });

  it('without subscribedTopicIds the old behaviour holds: the target is followed as is', () => {
    const m = member(MemberState.STABLE, 10, 9, { [T2]: [[4, 9]] });
    const r = reconcile({
      member: m, targetEpoch: 11, target: target({ [T1]: [1], [T2]: [4] }), currentPartitionEpoch: free,
      owned: owned({ [T2]: [4] }), hasSubscriptionChanged: true,
    });
    expectMember(r, { state: MemberState.STABLE, epoch: 11, prev: 10, assigned: { [T1]: [[1, 11]], [T2]: [[4, 9]] }, pending: {} });
  });
});
