import type { ElectLeadersRequest } from '../protocol/messages/ElectLeadersRequest.js';
import { defaultElectLeadersResponse, type ElectLeadersResponse, type PartitionResult, type ReplicaElectionResult } from '../protocol/messages/ElectLeadersResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { Broker } from '../broker.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

const PREFERRED = 0;
const UNCLEAN = 1;

/**
 * ElectLeaders (key 43, v0-2; v1 adds the election type, v2 is flexible), as Kafka 4.3's
 * `ReplicationControlManager.electLeaders` over the simulated cluster, where the leader of a partition
 * is always the first live replica of its list (a stopped preferred leader takes its partitions back
 * when it starts): PREFERRED answers ELECTION_NOT_NEEDED when the preferred replica leads, else
 * PREFERRED_LEADER_NOT_AVAILABLE (it is down); UNCLEAN answers ELECTION_NOT_NEEDED while any replica
 * leads, else ELIGIBLE_LEADERS_NOT_AVAILABLE. Unknown topics and partitions: UNKNOWN_TOPIC_OR_PARTITION
 * ("No such topic as t", "No such partition as t-p"). With no partitions named (null), every topic is
 * answered with only the partitions whose election was needed (none can be: nothing is elected here).
 * Another election type: INVALID_REQUEST "Unknown election type N" at the top and on every partition
 * named, as the controller's `InvalidRequestException` is answered.
 */
export const api: ApiDefinition<ElectLeadersRequest, ElectLeadersResponse> = {
  apiKey: 43,
  name: 'ElectLeaders',
  minVersion: 0,
  maxVersion: 2,
  // ElectLeadersRequest.getErrorResponse: the error on every partition named (v1+ at the top too).
  errorResponse: (req, version, errorCode) => ({
    ...defaultElectLeadersResponse(),
    errorCode: version >= 1 ? errorCode : 0,
    replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({ topic: t.topic, partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode, errorMessage: null })) })),
  }),
  names: (req) => ({ topics: (req.topicPartitions ?? []).map((t) => ({ name: t.topic, partitions: t.partitions })) }),
  routing: ANY_BROKER,
  handle(req, ctx) {
    // The controller's deadline (now + timeoutMs) has passed before it starts: the whole request
    // times out, nothing done (`QuorumController` appendWriteEvent; conformance: admin-edge-cases).
    if (req.timeoutMs <= 0) return api.errorResponse(req, ctx.apiVersion, ErrorCode.REQUEST_TIMED_OUT);
    const { broker } = ctx;
    const type = ctx.apiVersion >= 1 ? req.electionType : PREFERRED;
    if (type !== PREFERRED && type !== UNCLEAN) {
      const errorMessage = `Unknown election type ${type}`;
      return {
        ...api.errorResponse(req, ctx.apiVersion, ErrorCode.INVALID_REQUEST),
        replicaElectionResults: (req.topicPartitions ?? []).map((t) => ({ topic: t.topic, partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: ErrorCode.INVALID_REQUEST, errorMessage })) })),
      };
    }
    let replicaElectionResults: ReplicaElectionResult[];
    if (req.topicPartitions === null) {
      replicaElectionResults = broker.topics.list().map((t) => ({
        topic: t.name,
        partitionResult: t.partitions.map((p) => elect(broker, t.name, p.index, type)).filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED),
      }));
    } else {
      replicaElectionResults = req.topicPartitions.map((t) => ({ topic: t.topic, partitionResult: t.partitions.map((p) => elect(broker, t.topic, p, type)) }));
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults };
  },
};

function elect(broker: Broker, topicName: string, partition: number, type: number): PartitionResult {
  const result = (errorCode: number, errorMessage: string | null): PartitionResult => ({ partitionId: partition, errorCode, errorMessage });
  const topic = broker.topics.get(topicName);
  if (!topic) return result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such topic as ${topicName}`);
  if (!topic.partition(partition)) return result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `No such partition as ${topicName}-${partition}`);
  const leader = broker.cluster.leaderOf(topicName, partition);
  if (type === PREFERRED) {
    if (leader === broker.cluster.replicas(topicName, partition)[0]) return result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition.');
    return result(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, 'The preferred leader was not available.');
  }
  if (leader >= 0) return result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition.');
  return result(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, 'Eligible topic partition leaders are not available.');
}
