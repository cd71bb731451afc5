/**
 * Produce batches whose records are malformed, or their header (test/support/malformed-batches.ts),
 * over the raw protocol against a real server: each gets the answer a real Kafka 4.3.1 broker gave
 * the same bytes, and only what Kafka appends is appended. Kafka's `LogValidator` reads an uncompressed batch
 * with `DefaultRecord.readFrom` (InvalidRecordException -> INVALID_RECORD, a record length varint past
 * 5 bytes -> UNKNOWN_SERVER_ERROR) and a gzip one with `readPartiallyFrom` over the inflating stream
 * (record lengths unchecked; bytes that do not inflate -> UNKNOWN_SERVER_ERROR); neither answer has a
 * message. Batches refused for their header (two batches, magic 1, control, a negative base sequence,
 * count and offset range, CRC) get no message either, and -1 as log start offset where KafkaApis or
 * the log's CRC check refuses them. A compacted topic refused such batches and goes on being cleaned (manual clock).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { createTopic, produce } from '../support/raw-transactions.js';
import { rawBatch, record, recordBody } from '../support/raw-records.js';
import { MALFORMED_BATCHES } from '../support/malformed-batches.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/primitives.js';
import { defaultCreatableTopic, defaultCreateTopicsRequest } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/messages/FetchRequest.js';
import { decodeRecords, encodeRecordBatch } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('Produce of malformed batches and records', () => {
  it('answers each as Kafka 4.3.1 does (no message, the log start offset), appending only what Kafka appends', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-malformed-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    await createTopic(c, 'm');
    const logEnd = () => server.broker.topics.get('m')!.partition(0)!.logEndOffset;
    const answers: Record<string, unknown> = {};
    const expected: Record<string, unknown> = {};
    let next = 0n;
    for (const [name, { batch, kafka, refusedBeforeLog }] of Object.entries(MALFORMED_BATCHES)) {
      const res = await produce(c, 'm', null, batch);
      answers[name] = { errorCode: res.errorCode, errorMessage: res.errorMessage, baseOffset: res.baseOffset, logStartOffset: res.logStartOffset, logEnd: logEnd() };
      expected[name] = kafka === ErrorCode.NONE
        ? { errorCode: kafka, errorMessage: null, baseOffset: next, logStartOffset: 0n, logEnd: ++next }
        : { errorCode: kafka, errorMessage: null, baseOffset: -1n, logStartOffset: refusedBeforeLog ? -1n : 0n, logEnd: next };
    }
    expect(answers).toEqual(expected);
  });

  it('a compacted topic refuses them and goes on being cleaned, pass after pass', async () => {
    const { server } = await startClosableServer(cleanups, { clock: 'manual', config: { 'log.cleaner.backoff.ms': 3_600_000 } }, 'kmc-malformed-');
    const c = await RawClient.connect(server.port);
    cleanups.push(() => void c.socket.destroy());
    const create = defaultCreateTopicsRequest();
    create.timeoutMs = 10_000;
    create.topics = [{
      ...defaultCreatableTopic(), name: 'cm', numPartitions: 1, replicationFactor: 1,
      configs: [['cleanup.policy', 'compact'], ['segment.ms', '60000'], ['min.cleanable.dirty.ratio', '0.01']].map(([name, value]) => ({ name: name!, value: value! })),
    }];
    expect((await c.send(19, 7, create)).topics[0]!.errorCode).toBe(ErrorCode.NONE);
    const keyed = (key: string, headerCount: number, lengthDelta = 0) => record(recordBody({ key: Buffer.from(key), headerCount }), lengthDelta);
    for (const bad of [rawBatch(keyed('k1', -1), 1), rawBatch(keyed('k2', 0, 40), 1), rawBatch(Buffer.concat([keyed('k3', 0), Buffer.from([7, 7])]), 1)]) {
      expect((await produce(c, 'cm', null, bad)).errorCode).toBe(ErrorCode.INVALID_RECORD);
    }
    const fetchKeys = async () => {
      const req = defaultFetchRequest();
      req.maxWaitMs = 0;
      req.topics = [{ topic: 'cm', topicId: ZERO_UUID, partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }];
      const p = (await c.send(1, 11, req)).responses[0]!.partitions[0]!;
      const out: string[] = [];
      let records = p.records as Buffer;
      while (records.length > 0) {
        const size = records.readInt32BE(8) + 12;
        for (const r of decodeRecords(records.subarray(0, size))) out.push(`${r.offset}:${r.key!.toString()}`);
        records = records.subarray(size);
      }
      return out;
    };
    const cleaner = () => server.broker.logMaintenance.cleanerPass(true);
    // Pass 1: ten records over keys a0..a4 in the first segment; the eleventh rolls a new segment.
    for (let round = 0; round < 2; round++) {
      const timestamp = BigInt(server.clock.now());
      const records = Array.from({ length: 10 }, (_, i) => ({ key: Buffer.from(`a${i % 5}`), value: Buffer.from(`v${round}-${i}`) }));
      expect((await produce(c, 'cm', null, encodeRecordBatch({ baseOffset: 0n, timestamp, records }))).errorCode).toBe(ErrorCode.NONE);
      server.clock.advance(60_000);
      const roll = encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(server.clock.now()), records: [{ key: Buffer.from(`roll${round}`), value: Buffer.from('r') }] });
      expect((await produce(c, 'cm', null, roll)).errorCode).toBe(ErrorCode.NONE);
      await cleaner();
    }
    // Cleaned twice: of offsets 0-9 and 11-20, only the latest of each a-key is left; the roll records stay.
    expect(await fetchKeys()).toEqual(['10:roll0', '16:a0', '17:a1', '18:a2', '19:a3', '20:a4', '21:roll1']);
  });
});
