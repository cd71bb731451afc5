import type { DescribeShareGroupOffsetsRequest } from '../protocol/messages/DescribeShareGroupOffsetsRequest.js';
import { defaultDescribeShareGroupOffsetsResponse, defaultDescribeShareGroupOffsetsResponseGroup, type DescribeShareGroupOffsetsResponse } from '../protocol/messages/DescribeShareGroupOffsetsResponse.js';
import type { ApiDefinition } from './types.js';
import { groupList } from './shapes/group-list.js';
import { byGroupCoordinators } from './shapes/routing.js';

const GROUPS = groupList<DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse>({ request: 'groups', id: 'groupId', response: 'groups' });

/**
 * DescribeShareGroupOffsets (key 90, v0-1; KIP-932): per group, the share-partition start offset
 * and leader epoch of the named partitions (null topics: the group's initialized partitions), read
 * from the share state; v1 adds the lag. Served by `GroupCoordinator.describeShareGroupOffsets`.
 */
export const api: ApiDefinition<DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse> = {
  apiKey: 90,
  name: 'DescribeShareGroupOffsets',
  minVersion: 0,
  maxVersion: 1,
  // DescribeShareGroupOffsetsRequest.getErrorResponse: the error on every group.
  errorResponse: (req, _version, errorCode) => ({
    ...defaultDescribeShareGroupOffsetsResponse(),
    groups: req.groups.map((g) => ({ ...defaultDescribeShareGroupOffsetsResponseGroup(), groupId: g.groupId, errorCode })),
  }),
  names: (req) => ({ groups: GROUPS.ids(req) }),
  largeAnswers: true,
  routing: byGroupCoordinators(GROUPS),
  async handle(req, ctx) {
    // The lag's latest offset: the partition's high watermark (Kafka's ListOffsets latest).
    const latest = (topic: string, partition: number) => ctx.broker.topics.get(topic)?.partition(partition)?.highWatermark ?? null;
    return { throttleTimeMs: 0, groups: await Promise.all(req.groups.map((g) => ctx.broker.groups.describeShareGroupOffsets(g, latest))) };
  },
};
