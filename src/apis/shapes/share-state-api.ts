/**
 * The declaration shared by the share coordinator's APIs (83-87): topics of partitions by topic id,
 * CLUSTER_AUTHORIZATION_FAILED (or a fault's error) on every partition, served by one call per
 * partition (src/share/state/share-state-requests.ts).
 */
import type { Broker } from '../../broker.js';
import { everyPartitionFailed, perPartition } from '../../share/state/share-state-requests.js';
import type { ApiDefinition } from '../types.js';
import { ANY_BROKER } from './routing.js';

export interface StateRequest<P extends { partition: number }> {
  groupId: string;
  topics: Array<{ topicId: string; partitions: P[] }>;
}

export function shareStateApi<P extends { partition: number }, R extends { partition: number }>(spec: {
  apiKey: number;
  name: string;
  minVersion: number;
  maxVersion: number;
  /** A partition result at its defaults (the codec's `defaultPartitionResult`). */
  defaultPartition: () => object;
  /** Whether a topic without partitions makes Kafka answer no results (Read, Write, Summary). */
  partitionsRequired: boolean;
  call: (broker: Broker, groupId: string, topicId: string, p: P) => Promise<R>;
}): ApiDefinition<StateRequest<P>, { results: Array<{ topicId: string; partitions: object[] }> }> {
  return {
    apiKey: spec.apiKey,
    name: spec.name,
    minVersion: spec.minVersion,
    maxVersion: spec.maxVersion,
    errorResponse: (req, _version, errorCode) => ({ results: everyPartitionFailed(req, errorCode, spec.defaultPartition()) }),
    names: (req) => ({ groups: [req.groupId], topics: req.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => p.partition) })) }),
    routing: ANY_BROKER,
    async handle(req, ctx) {
      return { results: await perPartition(req, (topicId, p) => spec.call(ctx.broker, req.groupId, topicId, p), { partitionsRequired: spec.partitionsRequired }) };
    },
  };
}
