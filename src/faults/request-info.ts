import type { Broker } from '../broker.js';

/** What a request names, for matching fault rules and for the request log. */
export interface RequestInfo {
  groups: string[];
  memberIds: string[];
  /** Topic name -> partitions named (null: the topic is named without partitions). */
  topics: Map<string, number[] | null>;
}

type Body = Record<string, any>;

function topicName(broker: Broker, name: string | null | undefined, topicId: string | undefined, byId: boolean): string {
  if (byId && topicId) return broker.topics.getById(topicId)?.name ?? `<id:${topicId}>`;
  return name ?? '';
}

function addTopic(info: RequestInfo, topic: string, partitions: number[] | null): void {
  const have = info.topics.get(topic);
  if (have === undefined || have === null) info.topics.set(topic, partitions === null ? have ?? null : [...partitions]);
  else if (partitions !== null) have.push(...partitions);
}

/** Reads the group ids, member ids, topics and partitions a request names (per API key and version). */
export function requestInfo(apiKey: number, version: number, body: unknown, broker: Broker): RequestInfo {
  const b = (body ?? {}) as Body;
  const info: RequestInfo = { groups: [], memberIds: [], topics: new Map() };
  const group = (g: unknown): void => {
    if (typeof g === 'string' && g !== '') info.groups.push(g);
  };
  const member = (m: unknown): void => {
    if (typeof m === 'string' && m !== '') info.memberIds.push(m);
  };
  switch (apiKey) {
    case 0: // Produce
      for (const t of b['topicData'] ?? []) addTopic(info, topicName(broker, t.name, t.topicId, version >= 13), t.partitionData.map((p: Body) => p['index']));
      break;
    case 1: // Fetch
      for (const t of b['topics'] ?? []) addTopic(info, topicName(broker, t.topic, t.topicId, version >= 13), t.partitions.map((p: Body) => p['partition']));
      break;
    case 2: // ListOffsets
      for (const t of b['topics'] ?? []) addTopic(info, t.name, t.partitions.map((p: Body) => p['partitionIndex']));
      break;
    case 3: // Metadata
      for (const t of b['topics'] ?? []) addTopic(info, topicName(broker, t.name, t.topicId, !t.name), null);
      break;
    case 8: // OffsetCommit
      group(b['groupId']);
      member(b['memberId']);
      for (const t of b['topics'] ?? []) addTopic(info, topicName(broker, t.name, t.topicId, version >= 10), t.partitions.map((p: Body) => p['partitionIndex']));
      break;
    case 9: // OffsetFetch
      if (version >= 8) {
        for (const g of b['groups'] ?? []) {
          group(g.groupId);
          member(g.memberId);
          for (const t of g.topics ?? []) addTopic(info, topicName(broker, t.name, t.topicId, version >= 10), t.partitionIndexes);
        }
      } else {
        group(b['groupId']);
        for (const t of b['topics'] ?? []) addTopic(info, t.name, t.partitionIndexes);
      }
      break;
    case 10: // FindCoordinator: group keys only (key type 0)
      if ((b['keyType'] ?? 0) === 0) {
        if (version >= 4) for (const k of b['coordinatorKeys'] ?? []) group(k);
        else group(b['key']);
      }
      break;
    case 13: // LeaveGroup
      group(b['groupId']);
      member(b['memberId']);
      for (const m of b['members'] ?? []) member(m.memberId);
      break;
    case 15: // DescribeGroups
      for (const g of b['groups'] ?? []) group(g);
      break;
    case 19: // CreateTopics
      for (const t of b['topics'] ?? []) addTopic(info, t.name, null);
      break;
    case 20: // DeleteTopics
      for (const n of b['topicNames'] ?? []) addTopic(info, n, null);
      for (const t of b['topics'] ?? []) addTopic(info, topicName(broker, t.name, t.topicId, !t.name), null);
      break;
    case 42: // DeleteGroups
      for (const g of b['groupsNames'] ?? []) group(g);
      break;
    case 47: // OffsetDelete
      group(b['groupId']);
      for (const t of b['topics'] ?? []) addTopic(info, t.name, t.partitions.map((p: Body) => p['partitionIndex']));
      break;
    case 69: // ConsumerGroupDescribe
      for (const g of b['groupIds'] ?? []) group(g);
      break;
    default: // JoinGroup, Heartbeat, SyncGroup, ConsumerGroupHeartbeat, ...
      group(b['groupId']);
      member(b['memberId']);
  }
  return info;
}
