/**
 * Conformance: the partition-log side of transactions (issue 13). A raw client plays the
 * transactional producer (InitProducerId with a transactional id, transactional batches on Produce
 * v12: KIP-890's implicit add on Kafka) and the transaction coordinator (WriteTxnMarkers, key 27,
 * sent straight to the partition leader), and reads with read_committed / read_uncommitted Fetch
 * and ListOffsets. Producer ids differ between the two brokers: answers name them `<pid>`.
 */
import { describe } from 'vitest';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { encodeRecordBatch, readBatchHeader, TRANSACTIONAL_FLAG_MASK, CONTROL_FLAG_MASK, LOG_OVERHEAD } from '../../src/records/record-batch.js';
import { readEndTxnMarker } from '../../src/records/control-batch.js';
import { errorName } from '../../src/protocol/errors.js';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

interface Producer {
  producerId: bigint;
  producerEpoch: number;
}

/** InitProducerId for `transactionalId`, retried (not recorded) while Kafka's transaction coordinator loads or answers CONCURRENT_TRANSACTIONS. */
async function initProducer(s: Session, transactionalId: string): Promise<Producer> {
  const deadline = Date.now() + 30_000;
  let last = 0;
  while (Date.now() < deadline) {
    await s.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [transactionalId] });
    const r = await s.send(22, 5, { transactionalId, transactionTimeoutMs: 120_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    if (r.errorCode === 0) return { producerId: r.producerId, producerEpoch: r.producerEpoch };
    last = r.errorCode;
    await sleep(100);
  }
  throw new Error(`${s.target}: InitProducerId ${transactionalId}: ${errorName(last)}`);
}

/** A new topic and a transactional producer named after `base`. */
async function topicAndProducer(s: Session, base: string): Promise<{ topic: string; txnId: string; p: Producer }> {
  const topic = s.name(base);
  await s.createTopic(topic);
  const txnId = s.name(`${base}-producer`);
  return { topic, txnId, p: await initProducer(s, txnId) };
}

function txnBatch(p: Producer, baseSequence: number, count: number, transactional = true, valueBytes = 0): Buffer {
  return encodeRecordBatch({
    baseOffset: 0n,
    // Now: Kafka rolls a segment when a batch's timestamp is segment.ms past the segment's first one.
    timestamp: BigInt(Date.now()),
    records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v-${baseSequence + i}`.padEnd(valueBytes, '.')) })),
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    baseSequence,
    attributes: transactional ? TRANSACTIONAL_FLAG_MASK : 0,
  });
}

async function produce(s: Session, label: string, topic: string, transactionalId: string | null, batch: Buffer, version = 12): Promise<void> {
  const r = await s.send(0, version, {
    transactionalId,
    acks: -1,
    timeoutMs: 10_000,
    topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }],
  });
  const p = r.responses[0]!.partitionResponses[0]!;
  s.record(label, { errorCode: p.errorCode, errorMessage: p.errorMessage, baseOffset: p.baseOffset, logStartOffset: p.logStartOffset });
}

async function marker(
  s: Session,
  label: string,
  p: Producer,
  commit: boolean,
  topics: Array<{ name: string; partitionIndexes: number[] }>,
  options: { coordinatorEpoch?: number; version?: number; transactionVersion?: number } = {},
): Promise<void> {
  const r = await s.send(27, options.version ?? 1, {
    markers: [{ producerId: p.producerId, producerEpoch: p.producerEpoch, transactionResult: commit, topics, coordinatorEpoch: options.coordinatorEpoch ?? 0, transactionVersion: options.transactionVersion ?? 0 }],
  });
  s.record(label, r.markers.map((m) => ({ ...m, producerId: m.producerId === p.producerId ? '<pid>' : `${m.producerId}` })));
}

/** A producer id as both traces can show it: `<pid>` for `p` (or the name `names` gives it). */
function pidName(id: bigint, p: Producer | Map<bigint, string>): string {
  if (p instanceof Map) return p.get(id) ?? `${id}`;
  return id === p.producerId ? '<pid>' : `${id}`;
}

/**
 * Fetch of partition 0 from `offset`, recorded as watermarks, aborted transactions and a summary of
 * each whole batch (Kafka may end with part of one, which clients drop).
 */
async function fetchSummary(s: Session, label: string, topic: string, p: Producer | Map<bigint, string>, isolationLevel: number, offset = 0n, maxBytes = 1 << 20): Promise<void> {
  const r = await s.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    isolationLevel, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: maxBytes, replicaDirectoryId: ZERO_UUID, highWatermark: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const part = r.responses[0]!.partitions[0]!;
  const batches: unknown[] = [];
  const records = part.records ?? Buffer.alloc(0);
  for (let at = 0; at < records.length; ) {
    if (records.length - at < 61) break;
    const h = readBatchHeader(records, at);
    const size = h.batchLength + LOG_OVERHEAD;
    if (at + size > records.length) break;
    const control = (h.attributes & CONTROL_FLAG_MASK) !== 0;
    const end = control ? readEndTxnMarker(records.subarray(at, at + size)) : null;
    batches.push({
      baseOffset: h.baseOffset, lastOffsetDelta: h.lastOffsetDelta, count: h.recordCount, baseSequence: h.baseSequence,
      producerId: pidName(h.producerId, p), producerEpoch: h.producerEpoch,
      transactional: (h.attributes & TRANSACTIONAL_FLAG_MASK) !== 0, control, marker: end,
    });
    at += size;
  }
  s.record(label, {
    errorCode: part.errorCode, highWatermark: part.highWatermark, lastStableOffset: part.lastStableOffset, logStartOffset: part.logStartOffset,
    abortedTransactions: part.abortedTransactions?.map((a) => ({ producerId: pidName(a.producerId, p), firstOffset: a.firstOffset })) ?? null,
    batches,
  });
}

async function latest(s: Session, label: string, topic: string, isolationLevel: number): Promise<void> {
  await s.call(label, 2, 9, { replicaId: -1, isolationLevel, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });
}

describe('transactions on the partition log', () => {
  scenario('10 committed + 5 aborted records: COMMIT at 10, ABORT at 16, LSO while open, read_committed aborted list, ListOffsets', async (s) => {
    const { topic, txnId, p } = await topicAndProducer(s, 'txlog');
    await produce(s, 'produce 10 transactional records', topic, txnId, txnBatch(p, 0, 10));
    await fetchSummary(s, 'read_committed while open', topic, p, 1);
    await fetchSummary(s, 'read_uncommitted while open', topic, p, 0);
    await latest(s, 'latest read_committed while open', topic, 1);
    await latest(s, 'latest read_uncommitted while open', topic, 0);
    await marker(s, 'COMMIT marker', p, true, [{ name: topic, partitionIndexes: [0] }]);
    await latest(s, 'latest read_committed after COMMIT', topic, 1);
    await produce(s, 'produce 5 transactional records', topic, txnId, txnBatch(p, 10, 5));
    await latest(s, 'latest read_committed, second transaction open', topic, 1);
    await marker(s, 'ABORT marker', p, false, [{ name: topic, partitionIndexes: [0] }]);
    await fetchSummary(s, 'read_uncommitted from 0', topic, p, 0);
    await fetchSummary(s, 'read_committed from 0', topic, p, 1);
    await fetchSummary(s, 'read_committed from 12', topic, p, 1, 12n);
    await fetchSummary(s, 'read_committed from 17', topic, p, 1, 17n);
    await latest(s, 'latest read_committed', topic, 1);
    await latest(s, 'latest read_uncommitted', topic, 0);
    for (const isolationLevel of [0, 1]) {
      // Max timestamp (-3): the markers carry the brokers' clocks, so only the offset is compared.
      const max = await s.send(2, 9, { replicaId: -1, isolationLevel, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -3n }] }] });
      const part = max.topics[0]!.partitions[0]!;
      s.record(`max timestamp, isolation ${isolationLevel}`, { errorCode: part.errorCode, offset: part.offset, leaderEpoch: part.leaderEpoch });
    }
  }, { timeoutMs: 90_000 });

  scenario("two producers' interleaved transactions over 4 KiB index intervals: read_committed aborted lists by fetch offset and size", async (s) => {
    const topic = s.name('txmix');
    await s.createTopic(topic);
    const a = await initProducer(s, s.name('txmix-a'));
    const b = await initProducer(s, s.name('txmix-b'));
    const names = new Map([[a.producerId, '<a>'], [b.producerId, '<b>']]);
    const seq = new Map([[a.producerId, 0], [b.producerId, 0]]);
    const send = async (label: string, p: Producer, txnId: string) => {
      const at = seq.get(p.producerId)!;
      seq.set(p.producerId, at + 2);
      await produce(s, label, topic, txnId, txnBatch(p, at, 2, true, 900));
    };
    for (let round = 0; round < 6; round++) {
      await send(`a, round ${round}`, a, s.name('txmix-a'));
      await send(`b, round ${round}`, b, s.name('txmix-b'));
      if (round % 2 === 1) await marker(s, `abort a after round ${round}`, a, false, [{ name: topic, partitionIndexes: [0] }]);
      if (round === 3) await marker(s, 'commit b after round 3', b, true, [{ name: topic, partitionIndexes: [0] }]);
    }
    await marker(s, 'commit b at the end', b, true, [{ name: topic, partitionIndexes: [0] }]);
    for (const offset of [0n, 2n, 5n, 9n, 14n, 20n, 27n]) {
      for (const maxBytes of [1, 4000, 9000, 1 << 20]) {
        await fetchSummary(s, `read_committed from ${offset}, ${maxBytes} bytes`, topic, names, 1, offset, maxBytes);
      }
    }
    await latest(s, 'latest read_committed', topic, 1);
  }, { timeoutMs: 90_000 });

  scenario('WriteTxnMarkers errors: unknown topic and partition, zombie coordinator epoch, old producer epoch, TV2 epoch rules; empty request', async (s) => {
    const { topic, txnId, p } = await topicAndProducer(s, 'txmark');
    await marker(s, 'unknown topic and partition', p, true, [{ name: s.name('txmark-missing'), partitionIndexes: [0] }, { name: topic, partitionIndexes: [3] }]);
    await marker(s, 'marker with no transaction open, coordinator epoch 7', p, true, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 7 });
    await marker(s, 'coordinator epoch 6 after 7', p, false, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 6 });
    await produce(s, 'a transactional batch', topic, txnId, txnBatch(p, 0, 2));
    await marker(s, 'v2, TV2, same epoch while open', p, false, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 7, version: 2, transactionVersion: 2 });
    const bumped = { producerId: p.producerId, producerEpoch: p.producerEpoch + 1 };
    await marker(s, 'v2, TV2, bumped epoch', bumped, false, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 7, version: 2, transactionVersion: 2 });
    await marker(s, 'v2, TV2, the same marker again', bumped, false, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 7, version: 2, transactionVersion: 2 });
    await marker(s, 'v1, the old epoch', p, true, [{ name: topic, partitionIndexes: [0] }], { coordinatorEpoch: 7 });
    await fetchSummary(s, 'the log', topic, p, 1);
    await s.call('no markers', 27, 1, { markers: [] });
  }, { timeoutMs: 90_000 });

  scenario('DeleteRecords past an open transaction\'s first offset: the last stable offset is the log start offset until the marker', async (s) => {
    const { topic, txnId, p } = await topicAndProducer(s, 'txdel');
    await produce(s, 'a transactional batch of 3', topic, txnId, txnBatch(p, 0, 3));
    await s.call('DeleteRecords to 2', 21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 2n }] }], timeoutMs: 5000 });
    await fetchSummary(s, 'read_committed from 2', topic, p, 1, 2n);
    await latest(s, 'latest read_committed', topic, 1);
    await marker(s, 'COMMIT', p, true, [{ name: topic, partitionIndexes: [0] }]);
    await fetchSummary(s, 'read_committed from 2 after the COMMIT', topic, p, 1, 2n);
  }, { timeoutMs: 90_000 });

  scenario('DescribeProducers: a producer in and after its transaction, after a TV2 marker; an illegal name, unknown topic and partition', async (s) => {
    const { topic, txnId, p } = await topicAndProducer(s, 'txdesc');
    const describe = async (label: string, topics: Array<{ name: string; partitionIndexes: number[] }>) => {
      const r = await s.send(61, 0, { topics });
      s.record(label, r.topics.map((t) => ({
        ...t,
        name: t.name.replace(s.name(''), '<s>'),
        partitions: t.partitions.map((part) => ({
          ...part,
          activeProducers: part.activeProducers.map((a) => ({ ...a, producerId: pidName(a.producerId, p), lastTimestamp: a.lastTimestamp > 0n ? '<timestamp>' : a.lastTimestamp })),
        })),
      })));
    };
    const here = [{ name: topic, partitionIndexes: [0] }];
    await describe('no producer yet', here);
    await produce(s, 'a transactional batch of 3', topic, txnId, txnBatch(p, 0, 3));
    await describe('in the transaction', here);
    await marker(s, 'COMMIT, coordinator epoch 3', p, true, here, { coordinatorEpoch: 3 });
    await describe('after the COMMIT', here);
    await marker(s, 'TV2 ABORT with the next epoch', { producerId: p.producerId, producerEpoch: p.producerEpoch + 1 }, false, here, { coordinatorEpoch: 3, version: 2, transactionVersion: 2 });
    await describe('after the TV2 marker', here);
    await describe('errors', [{ name: 'bad name!', partitionIndexes: [0] }, { name: s.name('txdesc-missing'), partitionIndexes: [0, 1] }, { name: topic, partitionIndexes: [4] }]);
  }, { timeoutMs: 90_000, exactMessages: true });

  scenario('Produce: transactional batches without a transactional id; a non-transactional batch of a producer inside its transaction', async (s) => {
    const { topic, txnId, p } = await topicAndProducer(s, 'txprod');
    await produce(s, 'no transactional id', topic, null, txnBatch(p, 0, 1));
    await produce(s, 'transactional', topic, txnId, txnBatch(p, 0, 1));
    await produce(s, 'idempotent, not transactional, same producer', topic, txnId, txnBatch(p, 1, 1, false));
    await produce(s, 'idempotent, not transactional, no transactional id', topic, null, txnBatch(p, 1, 1, false));
    await fetchSummary(s, 'the log', topic, p, 0);
  }, { timeoutMs: 90_000, exactMessages: true });
});
