/**
 * The classic group a KIP-848 consumer group becomes in an online downgrade: Kafka 4.3's
 * `ClassicGroup.fromConsumerGroup` and `ClassicGroup.createClassicGroupRecords`. The consumer
 * coordinator says which members the group keeps (`ClassicDowngradePlan`); this module builds
 * the group and its GroupMetadata record without installing anything.
 */
import type { TopicPartition } from '../../records/schemas/ConsumerProtocolAssignment.js';
import * as AssignmentSchema from '../../records/schemas/ConsumerProtocolAssignment.js';
import type { GroupMetadataRecord } from '../records.js';
import { ClassicGroup, type ClassicGroupEnv } from './classic-group.js';
import { ClassicGroupMember, type ClassicGroupMemberInit } from './classic-member.js';
import { encodeAssignment } from './consumer-protocol.js';
import { currentAssignments, groupMetadataRecord } from './group-metadata.js';
import { ClassicGroupState } from './group-state.js';

/** The protocol type of a downgraded group (`ConsumerProtocol.PROTOCOL_TYPE`). */
const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * One member of the classic group, from a consumer group member that uses the classic protocol
 * (`sessionTimeoutMs` is its `ClassicMemberMetadata.sessionTimeoutMs`), with the consumer group's
 * target assignment of the member, by topic name.
 */
export type ClassicDowngradeMember = Omit<ClassicGroupMemberInit, 'protocolType' | 'assignment'> & { targetAssignment: TopicPartition[] };

/** What the consumer coordinator hands over: the group epoch and the members, in the order Kafka adds them. */
export interface ClassicDowngradePlan {
  groupId: string;
  /** The consumer group's epoch: the classic generation. */
  generationId: number;
  members: ClassicDowngradeMember[];
}

/** The built group, not yet installed: its GroupMetadata record and the step that installs it. */
export interface PreparedDowngrade {
  readonly record: GroupMetadataRecord;
  /** Puts the group in place, starts every member's session and, with a reason, a rebalance. */
  install(prepareRebalanceReason: string | null): void;
}

/**
 * Why the group cannot be built. `schema` marks Kafka's `SchemaException` (an unreadable
 * ConsumerProtocol version), which `convertToClassicGroup` answers with GROUP_ID_NOT_FOUND;
 * anything else is an unexpected error there.
 */
export class DowngradeError extends Error {
  constructor(
    message: string,
    readonly schema: boolean,
  ) {
    super(message);
  }
}

/**
 * `ClassicGroup.fromConsumerGroup`: Stable, generation = the group epoch, protocol type
 * "consumer", created now; members added in plan order (the first is the leader, as
 * `ClassicGroup.add` makes it); protocol name = `selectProtocol()`; every member's assignment is
 * its target as a ConsumerProtocolAssignment at the version of its metadata for that protocol.
 * Then `createClassicGroupRecords`: one GroupMetadata record with every member's assignment.
 */
export function buildFromConsumerGroup(env: ClassicGroupEnv, plan: ClassicDowngradePlan): { group: ClassicGroup; record: GroupMetadataRecord } {
  const group = new ClassicGroup(plan.groupId, env, {
    state: ClassicGroupState.STABLE,
    generationId: plan.generationId,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: null,
    leaderId: null,
    currentStateTimestamp: env.time.now(),
  });
  for (const m of plan.members) {
    // `ClassicGroup.add` refuses a member sharing no protocol with the others (IllegalStateException).
    if (!group.supportsProtocols(CONSUMER_PROTOCOL_TYPE, m.supportedProtocols.map((p) => p.name))) {
      throw new DowngradeError("None of the member's protocols can be supported.", false);
    }
    group.add(new ClassicGroupMember({ ...m, protocolType: CONSUMER_PROTOCOL_TYPE }));
  }
  const protocolName = group.selectProtocol();
  group.protocolName = protocolName;
  group.subscribedTopics = group.computeSubscribedTopics();
  for (const m of plan.members) {
    const member = group.member(m.memberId)!;
    member.assignment = encodeAssignment(m.targetAssignment, assignmentVersion(member.metadata(protocolName)));
  }
  return { group, record: groupMetadataRecord(group, currentAssignments(group)) };
}

/**
 * `ConsumerProtocol.deserializeVersion` then `checkAssignmentVersion`: the subscription's int16
 * version, capped at the newest assignment version; SchemaException when it is missing or negative.
 */
function assignmentVersion(metadata: Buffer): number {
  if (metadata.length < 2) throw new DowngradeError("Buffer underflow while parsing consumer protocol's header", true);
  const version = metadata.readInt16BE(0);
  if (version < 0) throw new DowngradeError(`Unsupported assignment version: ${version}`, true);
  return Math.min(version, AssignmentSchema.MAX_VERSION);
}
