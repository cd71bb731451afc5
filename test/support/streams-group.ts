/**
 * Streams groups (KIP-1071) over the raw protocol, for tests: a word count's topology as Kafka
 * Streams 4.3.1 describes it, the first and later heartbeats, and a group formed with its tasks.
 */
import type { ServerHandle } from '../../src/index.js';
import type { StreamsGroupHeartbeatRequest, Topology } from '../../src/protocol/messages/StreamsGroupHeartbeatRequest.js';
import type { StreamsGroupHeartbeatResponse } from '../../src/protocol/messages/StreamsGroupHeartbeatResponse.js';

export const STREAMS_TEST_CONFIG = {
  'group.streams.initial.rebalance.delay.ms': 0,
  'group.streams.assignment.interval.ms': 0,
  'group.streams.session.timeout.ms': 45000,
};

/**
 * A word count as Kafka Streams 4.3.1 describes it: subtopology 0 reads `input` and writes a
 * repartition topic; 1 counts into a changelogged store (replication factor -1: the broker's default).
 */
export function wordCountTopology(app: string, input: string): Topology {
  return {
    epoch: 0,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: [input], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [`${app}-counts-repartition`], repartitionSourceTopics: [], copartitionGroups: [] },
      {
        subtopologyId: '1',
        sourceTopics: [],
        sourceTopicRegex: [],
        stateChangelogTopics: [{ name: `${app}-counts-changelog`, partitions: 0, replicationFactor: -1, topicConfigs: [{ key: 'cleanup.policy', value: 'compact' }] }],
        repartitionSinkTopics: [],
        repartitionSourceTopics: [{ name: `${app}-counts-repartition`, partitions: 0, replicationFactor: -1, topicConfigs: [{ key: 'cleanup.policy', value: 'delete' }] }],
        copartitionGroups: [],
      },
    ],
  };
}

/** The word count of application `app` reading `in`. */
export const TOPOLOGY: Topology = wordCountTopology('app', 'in');

/** A first heartbeat (epoch 0) with `topology`. */
export function join(groupId: string, memberId: string, processId: string, topology: Topology = TOPOLOGY): StreamsGroupHeartbeatRequest {
  return {
    groupId,
    memberId,
    memberEpoch: 0,
    endpointInformationEpoch: 0,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: 300000,
    topology,
    activeTasks: [],
    standbyTasks: [],
    warmupTasks: [],
    processId,
    userEndpoint: null,
    clientTags: [],
    taskOffsets: null,
    taskEndOffsets: null,
    shutdownApplication: false,
  };
}

export function beat(groupId: string, memberId: string, memberEpoch: number, active: Record<string, number[]> | null = null): StreamsGroupHeartbeatRequest {
  const tasks = active === null ? null : Object.entries(active).map(([subtopologyId, partitions]) => ({ subtopologyId, partitions }));
  return {
    ...join(groupId, memberId, ''),
    memberEpoch,
    rebalanceTimeoutMs: -1,
    topology: null,
    processId: null,
    clientTags: null,
    activeTasks: tasks,
    standbyTasks: tasks === null ? null : [],
    warmupTasks: tasks === null ? null : [],
  };
}

/** Waits (for the event, not a time) until the background creation of both internal topics has finished. */
export async function internalTopicsCreated(server: ServerHandle): Promise<void> {
  while (!(server.broker.topics.get('app-counts-changelog') && server.broker.topics.get('app-counts-repartition'))) await new Promise((r) => setTimeout(r, 5));
}

export const activeOf = (r: StreamsGroupHeartbeatResponse): Record<string, number[]> | null => (r.activeTasks === null ? null : Object.fromEntries(r.activeTasks.map((t) => [t.subtopologyId, t.partitions])));

