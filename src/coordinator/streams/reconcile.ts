/**
 * Reconciliation of a streams member's tasks towards its target, as Kafka 4.3's
 * `org.apache.kafka.coordinator.group.streams.CurrentAssignmentBuilder`:
 * - kept = assigned ∩ target; pending revocation = assigned − kept; to add = target − kept, minus
 *   the tasks not released yet: an active task still owned by any process, or held by this member's
 *   process as a standby or warm-up; a standby or warm-up task this process holds in any role.
 * - With tasks to revoke that the member still reports owning (or reports nothing), it stays at its
 *   epoch in UNREVOKED_TASKS and keeps only `kept`; once it reports them gone it moves on to the
 *   next epoch (its own + 1) and is reconciled again.
 * - Otherwise it moves to the target epoch with `kept` plus what can be added: STABLE, or
 *   UNRELEASED_TASKS while some of its target is still held elsewhere.
 * Kept active tasks keep the epoch they were assigned at; added ones get the target epoch.
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { Assignment, EpochAssignment } from '../consumer/assignment.js';
import { StreamsGroupError } from './errors.js';
import { StreamsMemberState, type StreamsGroupMember } from './streams-member.js';
import { NO_TASKS, isEmptyTasks, union, type MemberTasks, type TargetTasks } from './tasks.js';

/** Who holds a task now (the group's views; `StreamsGroup.currentActiveTaskProcessId` and siblings). */
export interface TaskOwners {
  activeTaskProcessId(subtopologyId: string, partition: number): string | undefined;
  standbyTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string>;
  warmupTaskProcessIds(subtopologyId: string, partition: number): ReadonlySet<string>;
}

export interface ReconcileInput {
  member: StreamsGroupMember;
  targetEpoch: number;
  target: TargetTasks;
  owners: TaskOwners;
  /** The tasks the member reported owning; null when it did not report all three kinds. */
  owned: TargetTasks | null;
}

export function reconcile(input: ReconcileInput): StreamsGroupMember {
  const { member, targetEpoch, owned } = input;
  switch (member.state) {
    case StreamsMemberState.STABLE:
      return member.memberEpoch !== targetEpoch ? computeNext(input, member.memberEpoch) : member;
    case StreamsMemberState.UNREVOKED_TASKS:
      if (owned === null || containsAny(owned, member.pendingRevocation)) return member;
      return computeNext(input, member.memberEpoch + 1);
    case StreamsMemberState.UNRELEASED_TASKS:
      return computeNext(input, member.memberEpoch);
    default:
      if (owned === null || !isEmptyTasks(owned)) {
        throw new StreamsGroupError(ErrorCode.FENCED_MEMBER_EPOCH, 'The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.');
      }
      return computeNext(input, targetEpoch);
  }
}

function computeNext(input: ReconcileInput, memberEpoch: number): StreamsGroupMember {
  const { member, target, targetEpoch, owners, owned } = input;
  const process = member.processId;
  const heldHereInAnyRole = (id: string, p: number): boolean =>
    owners.activeTaskProcessId(id, p) === process || owners.standbyTaskProcessIds(id, p).has(process) || owners.warmupTaskProcessIds(id, p).has(process);
  const active = differenceWithEpochs(member.assigned.active, target.active, targetEpoch, (id, p) => owners.activeTaskProcessId(id, p) !== undefined || owners.standbyTaskProcessIds(id, p).has(process) || owners.warmupTaskProcessIds(id, p).has(process));
  const standby = difference(member.assigned.standby, target.standby, heldHereInAnyRole);
  const warmup = difference(member.assigned.warmup, target.warmup, heldHereInAnyRole);
  const hasUnreleased = active.unreleased || standby.unreleased || warmup.unreleased;

  const pendingRevocation: MemberTasks = { active: active.revoke, standby: standby.revoke, warmup: warmup.revoke };
  const kept: MemberTasks = { active: active.kept, standby: standby.kept, warmup: warmup.kept };
  const hasTasksToRevoke = !isEmptyTasks(pendingRevocation) && (owned === null || containsAny(owned, pendingRevocation));
  const withEpoch = (epoch: number) => ({ previousMemberEpoch: member.memberEpoch, memberEpoch: epoch });
  if (hasTasksToRevoke) {
    return { ...member, ...withEpoch(memberEpoch), state: StreamsMemberState.UNREVOKED_TASKS, assigned: kept, pendingRevocation };
  }
  const toAdd = active.add.size > 0 || standby.add.size > 0 || warmup.add.size > 0;
  const assigned: MemberTasks = toAdd ? { active: mergeEpochs(active.kept, active.add), standby: union(standby.kept, standby.add), warmup: union(warmup.kept, warmup.add) } : kept;
  return {
    ...member,
    ...withEpoch(targetEpoch),
    state: hasUnreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE,
    assigned,
    pendingRevocation: NO_TASKS,
  };
}

interface Difference<T> {
  kept: T;
  revoke: T;
  add: T;
  unreleased: boolean;
}

/** `computeAssignmentDifferenceWithEpoch`: active tasks, whose kept ones keep their epochs. */
function differenceWithEpochs(current: EpochAssignment, target: Assignment, targetEpoch: number, isUnreleased: (id: string, p: number) => boolean): Difference<EpochAssignment> {
  const out: Difference<EpochAssignment> = { kept: new Map(), revoke: new Map(), add: new Map(), unreleased: false };
  for (const id of new Set([...target.keys(), ...current.keys()])) {
    const now = current.get(id) ?? new Map<number, number>();
    const wanted = target.get(id) ?? new Set<number>();
    const kept = new Map([...now].filter(([p]) => wanted.has(p)));
    const revoke = new Map([...now].filter(([p]) => !kept.has(p)));
    const add = new Map<number, number>();
    for (const p of wanted) {
      if (kept.has(p)) continue;
      if (isUnreleased(id, p)) out.unreleased = true;
      else add.set(p, targetEpoch);
    }
    if (kept.size > 0) out.kept.set(id, kept);
    if (revoke.size > 0) out.revoke.set(id, revoke);
    if (add.size > 0) out.add.set(id, add);
  }
  return out;
}

/** `computeAssignmentDifference`: standby or warm-up tasks. */
function difference(current: Assignment, target: Assignment, isUnreleased: (id: string, p: number) => boolean): Difference<Assignment> {
  const out: Difference<Assignment> = { kept: new Map(), revoke: new Map(), add: new Map(), unreleased: false };
  for (const id of new Set([...target.keys(), ...current.keys()])) {
    const now = current.get(id) ?? new Set<number>();
    const wanted = target.get(id) ?? new Set<number>();
    const kept = new Set([...now].filter((p) => wanted.has(p)));
    const revoke = new Set([...now].filter((p) => !kept.has(p)));
    const add = new Set<number>();
    for (const p of wanted) {
      if (kept.has(p)) continue;
      if (isUnreleased(id, p)) out.unreleased = true;
      else add.add(p);
    }
    if (kept.size > 0) out.kept.set(id, kept);
    if (revoke.size > 0) out.revoke.set(id, revoke);
    if (add.size > 0) out.add.set(id, add);
  }
  return out;
}

function mergeEpochs(a: EpochAssignment, b: EpochAssignment): EpochAssignment {
  const out: EpochAssignment = new Map([...a].map(([id, m]) => [id, new Map(m)]));
  for (const [id, m] of b) {
    const into = out.get(id) ?? new Map<number, number>();
    for (const [p, e] of m) into.set(p, e);
    out.set(id, into);
  }
  return out;
}

/** `TasksTuple.containsAny`: a task of any kind in both. */
function containsAny(owned: TargetTasks, tasks: MemberTasks): boolean {
  const overlaps = (a: Assignment, b: Map<string, { has(p: number): boolean }>) => [...a].some(([id, ps]) => [...ps].some((p) => b.get(id)?.has(p) ?? false));
  return overlaps(owned.active, tasks.active) || overlaps(owned.standby, tasks.standby) || overlaps(owned.warmup, tasks.warmup);
}
