/**
 * franz-go's `GroupTransactSession` (kgo, the version test/clients/go/go.mod pins) doing
 * consume-transform-produce against the server, in a classic and in a KIP-848 group: 30 records over 3 partitions go through the Go
 * program's `etl` mode (read_committed, each poll's records transformed into one transaction with
 * the group's offsets), whose first transaction is aborted on purpose. Every input comes out exactly
 * once for a read_committed reader, in its partition's order; a read_uncommitted reader also sees
 * the aborted outputs; the group's committed offsets are the ends of the input partitions.
 * franz-go's own `TestTxnEtl` runs in franz-go-suite.test.ts. Skipped without Go.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Kafka } from 'kafkajs';
import type { ClientRecord } from './clients/group-resume.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { FRANZ_GO_BINARY, runFranzGo } from '../support/franz-go.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const PARTITIONS = 3;
const COUNT = 30;

/** The values of `topic` per partition, read from the beginning to each partition's end (its last offset, a marker here). */
async function readAll(kafka: Kafka, topic: string, readUncommitted: boolean): Promise<string[][]> {
  const admin = kafka.admin();
  await admin.connect();
  cleanups.push(() => admin.disconnect());
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, BigInt(p.high) - 1n]));
  const consumer = kafka.consumer({ groupId: `reader-${readUncommitted ? 'uncommitted' : 'committed'}`, readUncommitted, maxWaitTimeInMs: 100 });
  cleanups.push(() => consumer.disconnect());
  const reached = new Map<number, bigint>();
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => void reached.set(payload.partition, BigInt(payload.lastOffset)));
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const values: string[][] = Array.from({ length: PARTITIONS }, () => []);
  await consumer.run({ eachMessage: async ({ partition, message }) => void values[partition]!.push(message.value!.toString()) });
  await waitFor(() => [...ends].every(([p, end]) => (reached.get(p) ?? -1n) >= end), 60_000, `the end of every partition of ${topic}`);
  await consumer.stop();
  return values;
}

const byPartition = (records: readonly ClientRecord[]) => Array.from({ length: PARTITIONS }, (_, p) => records.filter((r) => r.partition === p).map((r) => String(r.value)));

describe.skipIf(FRANZ_GO_BINARY === null)('franz-go GroupTransactSession', () => {
  it.each(['classic', 'consumer'])('%s group: consume-transform-produce, every input transformed exactly once, the aborted first transaction invisible to read_committed, offsets committed', async (protocol) => {
    const server = await startTestServer();
    cleanups.push(() => server.stop());
    const kafka = kafkaClient(server.bootstrap, 'kmc-franz-etl');
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    await admin.createTopics({ topics: [{ topic: 'etl-in', numPartitions: PARTITIONS }, { topic: 'etl-out', numPartitions: PARTITIONS }] });

    await runFranzGo(['-mode', 'produce', '-bootstrap', server.bootstrap, '-topic', 'etl-in', '-count', String(COUNT), '-partitions', String(PARTITIONS), '-key-prefix', 'in']);
    const etl = await runFranzGo([
      '-mode', 'etl', '-bootstrap', server.bootstrap, '-topic', 'etl-in', '-out', 'etl-out', '-group', 'etl-app',
      '-txn-id', 'etl-tx', '-count', String(COUNT), '-abort-first', '-client-id', 'kmc-franz-go-etl', '-protocol', protocol,
    ]);
    await server.broker.transactions.flush();
    // What it spoke (the server's request log): transaction version 2 (KIP-890), partitions and
    // offsets joining the transaction with Produce v12+ and TxnOffsetCommit v5, no AddPartitionsToTxn
    // or AddOffsetsToTxn; and the group protocol asked for.
    const sent = new Set(server.faults.requests({ sinceSeq: 0 }).filter((e) => e.clientId === 'kmc-franz-go-etl').map((e) => `${e.api} v${e.version}`));
    expect([...sent]).toEqual(expect.arrayContaining(['InitProducerId v5', 'Produce v13', 'TxnOffsetCommit v5', 'EndTxn v5', protocol === 'classic' ? 'JoinGroup v9' : 'ConsumerGroupHeartbeat v1']));
    const apis = new Set([...sent].map((s) => s.split(' ')[0]));
    expect(['AddPartitionsToTxn', 'AddOffsetsToTxn', protocol === 'classic' ? 'ConsumerGroupHeartbeat' : 'JoinGroup'].filter((api) => apis.has(api))).toEqual([]);

    // Input i is at partition i % 3, offset floor(i / 3): value-i.
    const inputs = Array.from({ length: PARTITIONS }, (_, p) => Array.from({ length: COUNT / PARTITIONS }, (_, k) => `value-${k * PARTITIONS + p}`));
    expect(byPartition(etl.records ?? []), JSON.stringify(etl)).toEqual(inputs);
    const aborted = etl.aborted ?? [];
    expect(aborted.length, JSON.stringify(etl)).toBeGreaterThan(0);
    expect(etl.transactions).toBeGreaterThanOrEqual(2);
    // What the aborted transaction consumed came again: each partition's aborted inputs are a prefix of it.
    byPartition(aborted).forEach((values, p) => expect(values).toEqual(inputs[p]!.slice(0, values.length)));

    // Committed by the transactions (franz-go puts its member id in the metadata).
    const [offsets] = await admin.fetchOffsets({ groupId: 'etl-app', topics: ['etl-in'] });
    expect(offsets!.partitions.map((p) => [p.partition, p.offset]).sort()).toEqual([[0, '10'], [1, '10'], [2, '10']]);

    const transformed = (values: string[]) => values.map((v) => `etl:${v}`);
    expect(await readAll(kafka, 'etl-out', false)).toEqual(inputs.map(transformed));
    const uncommitted = await readAll(kafka, 'etl-out', true);
    // read_uncommitted: the aborted outputs first (the aborted transaction came first), then every input once.
    expect(uncommitted).toEqual(inputs.map((values, p) => [...transformed(byPartition(aborted)[p]!), ...transformed(values)]));
    // franz-go speaks transaction version 2 (KIP-890): every EndTxn bumped the epoch of the new id.
    const { state, clientTransactionVersion, producerEpoch } = server.broker.transactions.get('etl-tx')!.fields;
    expect([state, clientTransactionVersion, producerEpoch]).toEqual([4 /* CompleteCommit */, 2, etl.transactions]);
  }, 120_000);
});
