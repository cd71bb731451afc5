/**
 * KIP-848 group formation in a fixed order, for comparing heartbeat counts and group epochs with
 * Kafka 4.3.1 (test/e2e/consumer-group-formation.test.ts pins our figures,
 * test/conformance/consumer.conformance.test.ts compares the answers with a real broker).
 *
 * The order is the one a burst of joins takes on Kafka: its coordinator runtime runs the queued
 * heartbeats one after the other and answers them once their batch is written, so every member of
 * the burst has joined before the first acknowledgement arrives. Then:
 * 1. every member joins (epoch 0, the topic, nothing owned), in member order;
 * 2. acknowledgements: a member whose answer carried an assignment heartbeats again at once,
 *    reporting it as owned (as Kafka's Java consumer does), until no answer carries one;
 * 3. if ConsumerGroupDescribe does not show every member at the group epoch owning its target,
 *    `interval()` runs (the test advances its manual clock by the heartbeat interval) and every
 *    member heartbeats once with nothing changed (owned partitions not sent), then back to 2.
 */
import type { ConsumerGroupHeartbeatRequest } from '../../src/protocol/messages/ConsumerGroupHeartbeatRequest.js';
import type { ConsumerGroupHeartbeatResponse } from '../../src/protocol/messages/ConsumerGroupHeartbeatResponse.js';
import type { DescribedGroup } from '../../src/protocol/messages/ConsumerGroupDescribeResponse.js';
import { hb } from './kip848-group.js';

type Owned = Array<{ topicId: string; partitions: number[] }>;

export interface FormationOptions {
  groupId: string;
  topic: string;
  memberIds: readonly string[];
  /** Sends one heartbeat of member `index` and returns the answer (any error fails the formation). */
  heartbeat(index: number, req: ConsumerGroupHeartbeatRequest): Promise<ConsumerGroupHeartbeatResponse>;
  /** The group as ConsumerGroupDescribe shows it. */
  describe(): Promise<DescribedGroup>;
  /** Between two heartbeat rounds: time passes by one heartbeat interval. */
  interval?(): Promise<void> | void;
  /** Interval rounds after which the formation gives up (default 20). */
  maxRounds?: number;
}

export interface FormationResult {
  /** Heartbeats sent by each member, in member order, until the group was stable. */
  heartbeatsPerMember: number[];
  /** Interval rounds it took (step 3). */
  intervalRounds: number;
  /** The distinct member epochs the answers carried, ascending. */
  memberEpochs: number[];
  /** The group and target assignment epochs at the end. */
  groupEpoch: number;
  assignmentEpoch: number;
  /** Partitions owned per member at the end, in member order. */
  ownedPerMember: number[];
  /**
   * The answers phase by phase (joins, acknowledgements, interval round, acknowledgements, ...),
   * each phase one string of `m<index>:e<answered epoch>:<partitions assigned, - when the answer
   * carried no assignment>` separated by spaces.
   */
  phases: string[];
}

const count = (owned: Owned): number => owned.reduce((n, t) => n + t.partitions.length, 0);
const sortedParts = (a: { topicPartitions: Array<{ topicId: string; partitions: number[] }> }): string =>
  a.topicPartitions.flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`)).sort().join(',');

/** Runs the formation; see the module comment for the order. */
export async function formGroupInOrder(options: FormationOptions): Promise<FormationResult> {
  const { groupId, topic, memberIds } = options;
  const members = memberIds.map((memberId) => ({ memberId, epoch: 0, owned: [] as Owned, mustAck: false, heartbeats: 0 }));
  const epochs = new Set<number>();
  const phases: string[] = [];
  let phase: string[] = [];
  const endPhase = (): void => {
    phases.push(phase.join(' '));
    phase = [];
  };

  const send = async (index: number, extra: Partial<ConsumerGroupHeartbeatRequest>): Promise<void> => {
    const m = members[index]!;
    const res = await options.heartbeat(index, hb(groupId, m.memberId, m.epoch, extra));
    if (res.errorCode !== 0) throw new Error(`member ${index}: ConsumerGroupHeartbeat error ${res.errorCode} ${res.errorMessage ?? ''}`);
    m.heartbeats++;
    m.epoch = res.memberEpoch;
    epochs.add(res.memberEpoch);
    m.mustAck = res.assignment !== null;
    if (res.assignment) m.owned = res.assignment.topicPartitions.map((t) => ({ topicId: t.topicId, partitions: [...t.partitions].sort((a, b) => a - b) }));
    phase.push(`m${index}:e${res.memberEpoch}:${res.assignment ? count(m.owned) : '-'}`);
  };

  for (let i = 0; i < members.length; i++) await send(i, { rebalanceTimeoutMs: 300_000, subscribedTopicNames: [topic], topicPartitions: [] });
  endPhase();
  let intervalRounds = 0;
  for (;;) {
    while (members.some((m) => m.mustAck)) {
      for (let i = 0; i < members.length; i++) if (members[i]!.mustAck) await send(i, { topicPartitions: members[i]!.owned });
    }
    endPhase();
    const group = await options.describe();
    const stable =
      group.members.length === members.length &&
      group.members.every((m) => m.memberEpoch === group.groupEpoch && sortedParts(m.assignment) === sortedParts(m.targetAssignment));
    if (stable) {
      return {
        heartbeatsPerMember: members.map((m) => m.heartbeats),
        intervalRounds,
        memberEpochs: [...epochs].sort((a, b) => a - b),
        groupEpoch: group.groupEpoch,
        assignmentEpoch: group.assignmentEpoch,
        ownedPerMember: members.map((m) => count(m.owned)),
        phases,
      };
    }
    if (++intervalRounds > (options.maxRounds ?? 20)) throw new Error(`group ${groupId} not stable after ${intervalRounds - 1} interval rounds`);
    await options.interval?.();
    for (let i = 0; i < members.length; i++) await send(i, {});
    endPhase();
  }
}
