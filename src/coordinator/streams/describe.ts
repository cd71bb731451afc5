/**
 * StreamsGroupDescribe (89) of one streams group: Kafka 4.3's `StreamsGroup.asDescribedGroup`. The
 * topology is the configured one when it is ready (partition counts decided, replication factor 0
 * when unset), else the one the members sent; members carry their current and target tasks
 * (task offsets are left empty, as Kafka 4.3 keeps none).
 */
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/acl-operations.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { DescribedGroup, Member, Subtopology, TopicInfo } from '../../protocol/messages/StreamsGroupDescribeResponse.js';
import type { StreamsGroupTopologyValue } from '../../records/schemas/StreamsGroupTopologyValue.js';
import type { StreamsGroup } from './streams-group.js';
import type { StreamsGroupMember } from './streams-member.js';
import { toTaskIds, type TargetTasks } from './tasks.js';
import type { ConfiguredInternalTopic, ConfiguredTopology } from './topics/types.js';


export function describedGroupError(groupId: string, errorCode: number, errorMessage: string | null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
}

/**
 * `committed` is what the durable records make the group; `latest` lends its configured topology
 * (derived, never recorded) when both hold the same topology.
 */
export function describeStreamsGroup(committed: StreamsGroup, latest: StreamsGroup | undefined, includeAuthorizedOperations: boolean, authorizedOperations: number): DescribedGroup {
  const configured = committed.configuredTopology ?? (latest?.topology === committed.topology ? latest?.configuredTopology : null) ?? null;
  return {
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    groupId: committed.groupId,
    groupState: committed.state,
    groupEpoch: committed.groupEpoch,
    assignmentEpoch: committed.assignmentEpoch,
    topology: committed.topology === null ? null : describeTopology(committed.topology, configured),
    members: [...committed.members.values()].map((m) => describeMember(m, committed.targetAssignment.get(m.memberId))),
    authorizedOperations: includeAuthorizedOperations ? authorizedOperations : AUTHORIZED_OPERATIONS_OMITTED,
  };
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const sorted = (names: Iterable<string>) => [...names].sort();

function describeTopology(topology: StreamsGroupTopologyValue, configured: ConfiguredTopology | null): NonNullable<DescribedGroup['topology']> {
  if (configured !== null && configured.isReady && configured.subtopologies !== null) {
    return {
      epoch: configured.topologyEpoch,
      subtopologies: [...configured.subtopologies].map(([subtopologyId, s]): Subtopology => ({
        subtopologyId,
        sourceTopics: sorted(s.sourceTopics),
        repartitionSinkTopics: sorted(s.repartitionSinkTopics),
        stateChangelogTopics: [...s.stateChangelogTopics.values()].map(internalTopicInfo).sort(byName),
        repartitionSourceTopics: [...s.repartitionSourceTopics.values()].map(internalTopicInfo).sort(byName),
      })),
    };
  }
  return {
    epoch: topology.epoch,
    subtopologies: [...topology.subtopologies]
      .sort((a, b) => (a.subtopologyId < b.subtopologyId ? -1 : a.subtopologyId > b.subtopologyId ? 1 : 0))
      .map((s): Subtopology => ({
        subtopologyId: s.subtopologyId,
        sourceTopics: sorted(s.sourceTopics),
        repartitionSinkTopics: sorted(s.repartitionSinkTopics),
        stateChangelogTopics: s.stateChangelogTopics.map(recordTopicInfo).sort(byName),
        repartitionSourceTopics: s.repartitionSourceTopics.map(recordTopicInfo).sort(byName),
      })),
  };
}

function internalTopicInfo(t: ConfiguredInternalTopic): TopicInfo {
  return { name: t.name, partitions: t.numberOfPartitions, replicationFactor: t.replicationFactor ?? 0, topicConfigs: [...t.topicConfigs].map(([key, value]) => ({ key, value })) };
}

function recordTopicInfo(t: StreamsGroupTopologyValue['subtopologies'][number]['stateChangelogTopics'][number]): TopicInfo {
  return { name: t.name, partitions: t.partitions, replicationFactor: t.replicationFactor, topicConfigs: t.topicConfigs.map((c) => ({ key: c.key, value: c.value })) };
}

function describeMember(m: StreamsGroupMember, target: TargetTasks | undefined): Member {
  const active = new Map([...m.assigned.active].map(([id, parts]) => [id, new Set(parts.keys())]));
  return {
    memberId: m.memberId,
    memberEpoch: m.memberEpoch,
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    topologyEpoch: m.topologyEpoch,
    processId: m.processId,
    userEndpoint: m.userEndpoint === null ? null : { host: m.userEndpoint.host, port: m.userEndpoint.port },
    clientTags: m.clientTags.map((t) => ({ key: t.key, value: t.value })),
    taskOffsets: [],
    taskEndOffsets: [],
    assignment: { activeTasks: toTaskIds(active), standbyTasks: toTaskIds(m.assigned.standby), warmupTasks: toTaskIds(m.assigned.warmup) },
    targetAssignment: target
      ? { activeTasks: toTaskIds(target.active), standbyTasks: toTaskIds(target.standby), warmupTasks: toTaskIds(target.warmup) }
      : { activeTasks: [], standbyTasks: [], warmupTasks: [] },
    isClassic: false,
  };
}
