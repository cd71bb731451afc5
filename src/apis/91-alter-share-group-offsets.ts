import type { AlterShareGroupOffsetsRequest } from '../protocol/messages/AlterShareGroupOffsetsRequest.js';
import { defaultAlterShareGroupOffsetsResponse, type AlterShareGroupOffsetsResponse, type AlterShareGroupOffsetsResponseTopic } from '../protocol/messages/AlterShareGroupOffsetsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import { shareOffsetsErrorMessage } from '../coordinator/share/share-offsets-admin.js';
import { ZERO_UUID } from '../protocol/primitives.js';
import type { ApiDefinition } from './types.js';
import { byGroupCoordinator } from './shapes/routing.js';

/**
 * AlterShareGroupOffsets (key 91, v0; KIP-932): sets the share-partition start offsets of an empty
 * (or new) share group, as Kafka 4.3.1's `KafkaApis.handleAlterShareGroupOffsetsRequest`: topics
 * the broker does not have answer UNKNOWN_TOPIC_OR_PARTITION on each partition, first; the rest go
 * to `GroupCoordinator.alterShareGroupOffsets` (coordinator/share/share-offsets-admin.ts:
 * INVALID_GROUP_ID, GROUP_ID_NOT_FOUND for a group of another type, NON_EMPTY_GROUP at the top
 * level, which then is the whole answer). READ on the group and on each topic is checked by
 * src/security/authorization/api-checks.ts.
 */
export const api: ApiDefinition<AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse> = {
  apiKey: 91,
  name: 'AlterShareGroupOffsets',
  minVersion: 0,
  maxVersion: 0,
  // AlterShareGroupOffsetsRequest.getErrorResponse: the error and its message at the top level.
  errorResponse: (_req, _version, errorCode) => ({ ...defaultAlterShareGroupOffsetsResponse(), errorCode, errorMessage: shareOffsetsErrorMessage(errorCode) }),
  names: (req) => ({ groups: [req.groupId], topics: req.topics.map((t) => ({ name: t.topicName, partitions: t.partitions.map((p) => p.partitionIndex) })) }),
  routing: byGroupCoordinator(),
  async handle(req, ctx) {
    const known = req.topics.filter((t) => ctx.broker.topics.get(t.topicName) !== undefined);
    const unknownMessage = shareOffsetsErrorMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    // `AlterShareGroupOffsetsResponse.Builder`: one entry per topic name, the handler's first.
    const byName = new Map<string, AlterShareGroupOffsetsResponseTopic>();
    const entry = (name: string) => {
      let t = byName.get(name);
      if (!t) byName.set(name, (t = { topicName: name, topicId: ctx.broker.topics.get(name)?.topicId ?? ZERO_UUID, partitions: [] }));
      return t;
    };
    for (const t of req.topics) {
      if (known.includes(t)) continue;
      for (const p of t.partitions) entry(t.topicName).partitions.push({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: unknownMessage });
    }
    const res = await ctx.broker.groups.alterShareGroupOffsets(req.groupId, known);
    if (res.errorCode !== ErrorCode.NONE) return { ...defaultAlterShareGroupOffsetsResponse(), errorCode: res.errorCode, errorMessage: res.errorMessage };
    for (const t of res.responses) entry(t.topicName).partitions.push(...t.partitions);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses: [...byName.values()] };
  },
};
