/**
 * Raw-protocol helpers for the partition-log side of transactions (issue 13): a test plays the
 * transactional producer (InitProducerId, transactional batches on Produce) and the transaction
 * coordinator (WriteTxnMarkers) itself.
 */
import { expect } from 'vitest';
import type { RawClient } from './raw-client.js';
import type { ServerHandle } from '../../src/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultCreatableTopic, defaultCreateTopicsRequest } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { defaultPartitionProduceData, defaultProduceRequest } from '../../src/protocol/messages/ProduceRequest.js';
import { defaultListOffsetsPartition, defaultListOffsetsRequest } from '../../src/protocol/messages/ListOffsetsRequest.js';
import { encodeRecordBatch, TRANSACTIONAL_FLAG_MASK } from '../../src/records/record-batch.js';

/**
 * Makes `server`'s Produce path accept every transactional batch (the default verifier): tests that
 * drive the partition log alone write markers with WriteTxnMarkers, without the transaction
 * coordinator's AddPartitionsToTxn bookkeeping. Returns `server`.
 */
export function logOnly<S extends { broker: ServerHandle['broker'] }>(server: S): S {
  server.broker.txnMarkers.setVerifier(null);
  return server;
}

export interface RawProducer {
  producerId: bigint;
  producerEpoch: number;
}

export async function createTopic(raw: RawClient, name: string, partitions = 1): Promise<void> {
  const req = defaultCreateTopicsRequest();
  req.timeoutMs = 10_000;
  req.topics = [{ ...defaultCreatableTopic(), name, numPartitions: partitions, replicationFactor: 1 }];
  const res = await raw.send(19, 7, req);
  expect(res.topics[0]!.errorCode).toBe(ErrorCode.NONE);
}

export async function initProducer(raw: RawClient, transactionalId: string): Promise<RawProducer> {
  const res = await raw.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return { producerId: res.producerId, producerEpoch: res.producerEpoch };
}

export interface BatchSpec extends RawProducer {
  baseSequence: number;
  count: number;
  transactional: boolean;
  /** Values are `<prefix>-<sequence>` (default `v`). */
  prefix?: string;
}

export function batchOf(spec: BatchSpec): Buffer {
  return encodeRecordBatch({
    baseOffset: 0n,
    timestamp: 1_700_000_000_000n,
    records: Array.from({ length: spec.count }, (_, i) => ({ key: null, value: Buffer.from(`${spec.prefix ?? 'v'}-${spec.baseSequence + i}`) })),
    producerId: spec.producerId,
    producerEpoch: spec.producerEpoch,
    baseSequence: spec.baseSequence,
    attributes: spec.transactional ? TRANSACTIONAL_FLAG_MASK : 0,
  });
}

/** Produces `batch` to `topic`-`partition` (acks -1); the partition's answer. */
export async function produce(raw: RawClient, topic: string, transactionalId: string | null, batch: Buffer, partition = 0, version = 9) {
  const req = defaultProduceRequest();
  req.transactionalId = transactionalId;
  req.acks = -1;
  req.timeoutMs = 10_000;
  req.topicData = [{ name: topic, topicId: ZERO_UUID, partitionData: [{ ...defaultPartitionProduceData(), index: partition, records: batch }] }];
  const res = await raw.send(0, version, req);
  return res.responses[0]!.partitionResponses[0]!;
}

export interface MarkerSpec extends RawProducer {
  commit: boolean;
  coordinatorEpoch?: number;
  transactionVersion?: number;
}

/** WriteTxnMarkers (27) with one marker for `partitions`. */
export async function writeMarker(raw: RawClient, marker: MarkerSpec, partitions: Array<{ topic: string; partitions: number[] }>, version = 1) {
  return raw.send(27, version, {
    markers: [
      {
        producerId: marker.producerId,
        producerEpoch: marker.producerEpoch,
        transactionResult: marker.commit,
        topics: partitions.map((p) => ({ name: p.topic, partitionIndexes: p.partitions })),
        coordinatorEpoch: marker.coordinatorEpoch ?? 0,
        transactionVersion: marker.transactionVersion ?? 0,
      },
    ],
  });
}

/** The error of a one-partition WriteTxnMarkers answer. */
export function markerError(res: Awaited<ReturnType<typeof writeMarker>>): number {
  return res.markers[0]!.topics[0]!.partitions[0]!.errorCode;
}

/** ListOffsets latest (v7) of `topic`-0: the high watermark (isolation level 0) or the last stable offset (1). */
export async function latestOffset(raw: RawClient, topic: string, isolationLevel: number): Promise<bigint> {
  const req = defaultListOffsetsRequest();
  req.replicaId = -1;
  req.isolationLevel = isolationLevel;
  req.topics = [{ name: topic, partitions: [{ ...defaultListOffsetsPartition(), partitionIndex: 0, timestamp: -1n }] }];
  const res = await raw.send(2, 7, req);
  expect(res.topics[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
  return res.topics[0]!.partitions[0]!.offset;
}
