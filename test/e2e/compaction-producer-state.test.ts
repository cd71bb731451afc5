/**
 * The log cleaner keeps each active producer's last batch, empty if all its records are shadowed
 * (Kafka's `Cleaner.cleanInto`: `BatchRetention.RETAIN_EMPTY` for the batch whose last offset is
 * the producer's last data offset), so the producer state rebuilt from the log at a restart still
 * knows the producer's last sequence: its retry is answered as a duplicate with the original
 * offset, and its next batch is in sequence. Raw Produce with an idempotent producer id on a
 * compacted topic; the manual clock rolls the segment (`segment.ms`) before the last batch, so the
 * ones before it are in one closed segment (whose last batch a clean keeps anyway) and cleaned.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { produce } from '../support/raw-transactions.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ServerHandle } from '../../src/index.js';
import { defaultCreatableTopic, defaultCreateTopicsRequest } from '../../src/protocol/messages/CreateTopicsRequest.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';
import { encodeRecordBatch, readBatchHeader } from '../../src/records/record-batch.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const TOPIC = 'cmp-producers';
const CONFIG = { 'log.cleaner.backoff.ms': 3_600_000 };
const SEGMENT_MS = 60_000;

interface Producer {
  producerId: bigint;
  producerEpoch: number;
}

/** One batch of `keys` (values `<key>-<seq>`); a producer id of -1 is a plain (non-idempotent) producer. */
function keyedBatch(p: Producer, baseSequence: number, keys: string[]): Buffer {
  return encodeRecordBatch({
    baseOffset: 0n,
    timestamp: 1_700_000_000_000n,
    records: keys.map((k, i) => ({ key: Buffer.from(k), value: Buffer.from(`${k}-${baseSequence + i}`) })),
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    baseSequence,
  });
}

const PLAIN: Producer = { producerId: -1n, producerEpoch: -1 };

async function connect(server: ServerHandle): Promise<RawClient> {
  const raw = await RawClient.connect(server.port);
  cleanups.push(() => raw.close());
  return raw;
}

async function createCompacted(raw: RawClient): Promise<void> {
  const req = defaultCreateTopicsRequest();
  req.timeoutMs = 10_000;
  req.topics = [{ ...defaultCreatableTopic(), name: TOPIC, numPartitions: 1, replicationFactor: 1, configs: [{ name: 'cleanup.policy', value: 'compact' }, { name: 'segment.ms', value: String(SEGMENT_MS) }] }];
  const res = await raw.send(19, 7, req);
  expect(res.topics[0]!.errorCode).toBe(ErrorCode.NONE);
}

/** An idempotent producer id (InitProducerId without a transactional id). */
async function idempotentProducer(raw: RawClient): Promise<Producer> {
  const res = await raw.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
  expect(res.errorCode).toBe(ErrorCode.NONE);
  return { producerId: res.producerId, producerEpoch: res.producerEpoch };
}

async function send(raw: RawClient, p: Producer, seq: number, keys: string[]): Promise<{ errorCode: number; baseOffset: bigint }> {
  const r = await produce(raw, TOPIC, null, keyedBatch(p, seq, keys));
  return { errorCode: r.errorCode, baseOffset: r.baseOffset };
}

/** The partition's batches: base offset, last offset, records, producer id, base sequence. */
function layout(server: ServerHandle): Array<[number, number, number, bigint, number]> {
  return [...server.broker.topics.get(TOPIC)!.partition(0)!.log.batches()].map((b) => {
    const h = readBatchHeader(b);
    return [Number(h.baseOffset), Number(h.baseOffset) + h.lastOffsetDelta, h.recordCount, h.producerId, h.baseSequence];
  });
}

/** A server on the manual clock with the compacted topic, and an idempotent producer. */
async function start(): Promise<{ first: Awaited<ReturnType<typeof startClosableServer>>; raw: RawClient; p: Producer }> {
  const first = await startClosableServer(cleanups, { clock: 'manual', config: CONFIG });
  const raw = await connect(first.server);
  await createCompacted(raw);
  return { first, raw, p: await idempotentProducer(raw) };
}

async function cleanThenRestart(first: Awaited<ReturnType<typeof startClosableServer>>): Promise<ServerHandle> {
  const log = first.server.broker.topics.get(TOPIC)!.partition(0)!.log;
  expect(log.closedSegments().length).toBe(1);
  await first.server.broker.logMaintenance.cleanerPass(true);
  await first.close();
  const second = await startClosableServer(cleanups, { clock: 'manual', dataDir: first.dataDir, config: CONFIG });
  return second.server;
}

describe('log cleaner and producer state', () => {
  it("keeps an idempotent producer's shadowed last batch empty: after a restart its next sequence is accepted, a gap is out of order", async () => {
    const { first, raw, p } = await start();
    expect(await send(raw, p, 0, ['a'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 0n });
    expect(await send(raw, p, 1, ['b', 'c'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 1n });
    // A plain producer shadows b and c (the idempotent producer's last batch); `z` goes to a new active segment.
    expect(await send(raw, PLAIN, -1, ['b', 'c'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 3n });
    first.server.clock.advance(SEGMENT_MS);
    expect(await send(raw, PLAIN, -1, ['z'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 5n });

    const server = await cleanThenRestart(first);
    // Offsets 1-2 stay as a header-only batch of the producer with its base sequence (failed before: gone).
    expect(layout(server)).toEqual([
      [0, 0, 1, p.producerId, 0],
      [1, 2, 0, p.producerId, 1],
      [3, 4, 2, -1n, -1],
      [5, 5, 1, -1n, -1],
    ]);
    const again = await connect(server);
    // Failed before: the rebuilt state ended at sequence 0, so sequence 3 was OUT_OF_ORDER_SEQUENCE_NUMBER.
    expect(await send(again, p, 3, ['d'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 6n });
    expect(await send(again, p, 5, ['e'])).toMatchObject({ errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it("keeps a producer's last batch when all its records are shadowed: after a restart its retry is a duplicate at the original offset", async () => {
    const { first, raw, p } = await start();
    expect(await send(raw, p, 0, ['a'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 0n });
    expect(await send(raw, p, 1, ['b'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 1n });
    expect(await send(raw, PLAIN, -1, ['a', 'b'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 2n });
    first.server.clock.advance(SEGMENT_MS);
    expect(await send(raw, PLAIN, -1, ['z'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 4n });

    const server = await cleanThenRestart(first);
    // The producer's first batch goes (not its last); its last stays empty.
    expect(layout(server)).toEqual([
      [1, 1, 0, p.producerId, 1],
      [2, 3, 2, -1n, -1],
      [4, 4, 1, -1n, -1],
    ]);
    const again = await connect(server);
    // Failed before: the producer was unknown after the restart, so its retry was appended again at offset 5.
    expect(await send(again, p, 1, ['b'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 1n });
    expect(await send(again, p, 2, ['c'])).toEqual({ errorCode: ErrorCode.NONE, baseOffset: 5n });
    expect(layout(server).map(([base, , records]) => [base, records])).toEqual([[1, 0], [2, 2], [4, 1], [5, 1]]);
  });
});
