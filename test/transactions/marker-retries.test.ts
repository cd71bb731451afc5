/**
 * The transaction coordinator's marker sending as Kafka's `TransactionMarkerChannelManager` and
 * `TransactionMarkerRequestCompletionHandler`: partitions whose marker failed with a retriable error
 * (KAFKA_STORAGE_ERROR, NOT_LEADER_OR_FOLLOWER) are retried until written, however many rounds that
 * takes, and only then is CompleteCommit written; a deleted partition leaves the transaction;
 * INVALID_PRODUCER_EPOCH stops the sending with the transaction left in PrepareCommit; a shutdown
 * ends the retries. The coordinator runs on a manual clock, in memory, with a marker writer that
 * answers as the partition leaders would.
 */
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { BrokerConfig } from '../../src/config.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ManualTime } from '../../src/util/manual-time.js';
import { ProducerIdManager } from '../../src/topics/producer-ids.js';
import { TransactionLog } from '../../src/transactions/transaction-log.js';
import { TransactionCoordinator, type TxnMarker } from '../../src/transactions/transaction-coordinator.js';
import { TxnState } from '../../src/transactions/transaction-state.js';
import type { MarkerPartitionResult, TopicPartitionRef } from '../../src/topics/transaction-markers.js';

const log = pino({ level: 'silent' });

/** A coordinator whose markers are answered by `answer` (per partition and round), on its own retry clock. */
function coordinator(answer: (tp: TopicPartitionRef, round: number) => number) {
  const time = new ManualTime(1_000_000);
  const retryTime = new ManualTime(0);
  const rounds: Array<{ marker: TxnMarker; partitions: string[] }> = [];
  const config = new BrokerConfig({});
  const txns = new TransactionCoordinator({
    log: new TransactionLog({ dataDir: null, config, log, time }),
    producerIds: new ProducerIdManager(),
    writeMarkers: (marker, partitions): Promise<MarkerPartitionResult[]> => {
      const round = rounds.push({ marker, partitions: partitions.map((p) => `${p.topic}-${p.partition}`) }) - 1;
      return Promise.resolve(partitions.map((tp) => ({ ...tp, errorCode: answer(tp, round) })));
    },
    time,
    logger: log,
    maxTimeoutMs: 900_000,
    idExpirationMs: 604_800_000,
    retryTime,
  });
  return { txns, retryTime, rounds };
}

/** An id with an Ongoing transaction on t-0 and t-1 (version 1 protocol), then EndTxn commit answered. */
async function committing(txns: TransactionCoordinator): Promise<void> {
  const init = await txns.initProducerId('tx', 60_000, null);
  expect(init.errorCode).toBe(ErrorCode.NONE);
  expect(await txns.addPartitions('tx', init.producerId, init.producerEpoch, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }], 0)).toBe(ErrorCode.NONE);
  expect((await txns.endTxn('tx', init.producerId, init.producerEpoch, true, 0)).errorCode).toBe(ErrorCode.NONE);
}

/** Lets the marker round in flight settle (its promises resolve in microtasks). */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

describe('transaction markers', () => {
  it('retries a partition whose marker keeps failing until it is written, then completes the transaction', async () => {
    // t-1's leader cannot write for 12 rounds (more than the 5 attempts the coordinator used to give up after).
    const { txns, retryTime, rounds } = coordinator((tp, round) => (tp.partition === 1 && round < 12 ? ErrorCode.KAFKA_STORAGE_ERROR : ErrorCode.NONE));
    await committing(txns);
    for (let i = 0; i < 12; i++) {
      await settle();
      expect(txns.get('tx')!.state).toBe(TxnState.PREPARE_COMMIT);
      retryTime.advance(1000);
    }
    await txns.flush();
    expect(txns.get('tx')!.state).toBe(TxnState.COMPLETE_COMMIT);
    expect(rounds.map((r) => r.partitions)).toEqual([['t-0', 't-1'], ...Array.from({ length: 12 }, () => ['t-1'])]);
    expect(new Set(rounds.map((r) => r.marker.commit))).toEqual(new Set([true]));
  });

  it('drops a deleted partition (UNKNOWN_TOPIC_OR_PARTITION) and completes', async () => {
    const { txns, rounds } = coordinator((tp) => (tp.partition === 1 ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE));
    await committing(txns);
    await txns.flush();
    expect(txns.get('tx')!.state).toBe(TxnState.COMPLETE_COMMIT);
    expect(rounds).toHaveLength(1);
  });

  it('stops sending on INVALID_PRODUCER_EPOCH: the transaction stays in PrepareCommit and the id answers CONCURRENT_TRANSACTIONS', async () => {
    const { txns, rounds } = coordinator((tp) => (tp.partition === 1 ? ErrorCode.INVALID_PRODUCER_EPOCH : ErrorCode.NONE));
    await committing(txns);
    await txns.flush();
    expect(rounds).toHaveLength(1);
    expect(txns.get('tx')!.state).toBe(TxnState.PREPARE_COMMIT);
    expect((await txns.initProducerId('tx', 60_000, null)).errorCode).toBe(ErrorCode.CONCURRENT_TRANSACTIONS);
  });

  it('a shutdown ends the retries and leaves the transaction in PrepareCommit (the next start sends its markers)', async () => {
    const { txns, rounds } = coordinator(() => ErrorCode.NOT_LEADER_OR_FOLLOWER);
    await committing(txns);
    await settle();
    txns.shutdown();
    await txns.flush();
    expect(txns.get('tx')!.state).toBe(TxnState.PREPARE_COMMIT);
    expect(rounds).toHaveLength(1);
  });
});
