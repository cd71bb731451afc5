/**
 * KIP-951 leader hints: Produce (v10+) and Fetch (v12+) partitions answered NOT_LEADER_OR_FOLLOWER or
 * FENCED_LEADER_EPOCH carry the partition's `currentLeader` (id and epoch), and the response lists
 * those leaders' `nodeEndpoints` (Produce v10+, Fetch v16+), so a client can go to the new leader
 * without waiting for a metadata refresh (Kafka's `KafkaApis.handleProduceRequest` /
 * `handleFetchRequest` fill them from the metadata cache).
 */
import type { Broker } from '../broker.js';
import { ErrorCode } from '../protocol/errors.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = Record<string, any>;

const HINTED: ReadonlySet<number> = new Set([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH]);

/** Adds the hints to a Produce (key 0) or Fetch (key 1) response in place; other responses are returned as they are. */
export function addLeaderHints(apiKey: number, version: number, response: unknown, broker: Broker): unknown {
  if (!response || typeof response !== 'object') return response;
  const produce = apiKey === 0;
  if ((produce && version < 10) || (apiKey === 1 && version < 12) || (!produce && apiKey !== 1)) return response;
  const res = response as Obj;
  const leaders = new Set<number>();
  for (const t of res['responses'] ?? []) {
    const name: string = (produce ? t['name'] : t['topic']) || broker.topics.getById(t['topicId'])?.name || '';
    const topic = broker.topics.get(name);
    for (const p of (produce ? t['partitionResponses'] : t['partitions']) ?? []) {
      if (!HINTED.has(p['errorCode']) || !topic) continue;
      const index: number = produce ? p['index'] : p['partitionIndex'];
      const partition = topic.partition(index);
      const leaderId = broker.cluster.leaderOf(name, index);
      if (!partition || leaderId < 0) continue;
      p['currentLeader'] = { leaderId, leaderEpoch: partition.leaderEpoch };
      leaders.add(leaderId);
    }
  }
  if (produce || version >= 16) {
    res['nodeEndpoints'] = [...leaders].sort((a, b) => a - b).map((nodeId) => ({ nodeId, ...broker.cluster.endpoint(nodeId), rack: null }));
  }
  return res;
}
