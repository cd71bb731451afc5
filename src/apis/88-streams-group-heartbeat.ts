import type { StreamsGroupHeartbeatRequest } from '../protocol/messages/StreamsGroupHeartbeatRequest.js';
import { defaultStreamsGroupHeartbeatResponse, type StreamsGroupHeartbeatResponse } from '../protocol/messages/StreamsGroupHeartbeatResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { isInternalTopic, isValidTopicName } from '../topics/topic-name.js';
import { StreamsStatus } from '../coordinator/streams/topics/types.js';
import { Slicer } from '../util/slices.js';
import { CREATE_SLICE_PARTITIONS } from '../topics/topic-store.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { groupAndMember } from './shapes/names.js';
import { byGroupCoordinator } from './shapes/routing.js';
import { createOne } from './19-create-topics.js';

/**
 * StreamsGroupHeartbeat (key 88, v0; KIP-1071 streams groups), served by
 * `StreamsGroupCoordinator.heartbeat`, with what Kafka 4.3's `KafkaApis.handleStreamsGroupHeartbeat`
 * does around it: a topology naming an internal topic (`__consumer_offsets`, ...) or an invalid
 * topic name is refused with STREAMS_INVALID_TOPOLOGY before the coordinator sees it, and the
 * repartition and changelog topics the group lacks are created in the background
 * (`AutoTopicCreationManager.createStreamsInternalTopics`) while the heartbeats answer
 * MISSING_INTERNAL_TOPICS, with "Creation failed: ..." appended once a creation failed.
 */
export const api: ApiDefinition<StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse> = {
  apiKey: 88,
  name: 'StreamsGroupHeartbeat',
  minVersion: 0,
  maxVersion: 0,
  errorResponse: topLevelError(defaultStreamsGroupHeartbeatResponse),
  names: groupAndMember,
  routing: byGroupCoordinator(),
  async handle(req, ctx) {
    if (req.topology !== null) {
      const required = [
        ...new Set(req.topology.subtopologies.flatMap((s) => [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((t) => t.name), ...s.stateChangelogTopics.map((t) => t.name)])),
      ];
      const prohibited = required.filter(isInternalTopic);
      if (prohibited.length > 0) return invalidTopology(`Use of Kafka internal topics ${prohibited.join(',')} in a Kafka Streams topology is prohibited.`);
      const invalid = required.filter((t) => !isValidTopicName(t));
      if (invalid.length > 0) return invalidTopology(`Topic names ${invalid.join(',')} are not valid topic names.`);
    }
    const { response, internalTopicsToCreate } = await ctx.broker.groups.streamsGroupHeartbeat(req, ctx);
    if (internalTopicsToCreate.size > 0) {
      const broker = ctx.broker;
      const ttlMs = 2 * broker.groups.streams.heartbeatIntervalMs(req.groupId);
      broker.internalTopicCreation.create(internalTopicsToCreate.values(), ttlMs, async (t) => {
        const created = await createOne(broker, { ...t, assignments: [], configs: t.configs.map((c) => ({ name: c.name, value: c.value })) }, false, 7, new Slicer(CREATE_SLICE_PARTITIONS));
        if (created.errorCode === ErrorCode.NONE) broker.log.info({ topic: t.name, groupId: req.groupId }, 'created a streams group internal topic');
        else broker.log.warn({ topic: t.name, errorCode: created.errorCode, message: created.errorMessage }, 'could not create a streams group internal topic');
        return created;
      });
      const missing = response.status?.find((s) => s.statusCode === StreamsStatus.MISSING_INTERNAL_TOPICS);
      const failed = broker.internalTopicCreation.errorsOf(internalTopicsToCreate.keys());
      if (missing && failed.length > 0) {
        const listed = failed.slice(0, 3).map(([topic, error]) => `${topic} (${error})`).join(', ');
        missing.statusDetail += `; Creation failed: ${failed.length > 3 ? `${listed} and ${failed.length - 3} more` : listed}.`;
      }
    }
    return response;
  },
};

function invalidTopology(message: string): StreamsGroupHeartbeatResponse {
  return { ...defaultStreamsGroupHeartbeatResponse(), errorCode: ErrorCode.STREAMS_INVALID_TOPOLOGY, errorMessage: message };
}
