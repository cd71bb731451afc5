/**
 * read_committed consumers of real clients against transactions written on the partition log
 * (issue 13): a raw client plays three transactional producers and their coordinator
 * (WriteTxnMarkers), kafkajs adds plain records. kafkajs (`readUncommitted: false`, its default) and
 * confluent-kafka (`isolation.level`) read the partition: committed records only, in offset order,
 * never the control records, and nothing past the last stable offset while a transaction is open;
 * read_uncommitted sees the aborted records too.
 *
 * The log: a-0..a-2 (0-2, A), b-0 b-1 (3-4, B), COMMIT A (5), a-3..a-5 (6-8, A), ABORT B (9),
 * COMMIT A (10), plain-0 plain-1 (11-12), c-0 (13, C open), plain-2 plain-3 (14-15), COMMIT C (16).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { batchOf, createTopic, initProducer, logOnly, markerError, produce, writeMarker, type RawProducer } from '../support/raw-transactions.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ISOLATION = join(HERE, 'clients', 'librdkafka_isolation.py');
const TOPIC = 'rc';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const COMMITTED_BEFORE_C = ['a-0', 'a-1', 'a-2', 'a-3', 'a-4', 'a-5', 'plain-0', 'plain-1'];
const COMMITTED = [...COMMITTED_BEFORE_C, 'c-0', 'plain-2', 'plain-3'];
const EVERYTHING = ['a-0', 'a-1', 'a-2', 'b-0', 'b-1', 'a-3', 'a-4', 'a-5', 'plain-0', 'plain-1', 'c-0', 'plain-2', 'plain-3'];

interface Log {
  bootstrap: string;
  raw: RawClient;
  c: RawProducer;
  /** Produces plain records with kafkajs. */
  plain(values: string[]): Promise<void>;
}

/** Writes the log up to C's open transaction and plain-2/3 (offset 15). */
async function writeLogWithCOpen(): Promise<Log> {
  // The raw producers add no partitions with AddPartitionsToTxn: the Produce path accepts their batches.
  const server = logOnly(await startTestServer());
  cleanups.push(() => server.stop());
  const raw = await RawClient.connect(server.port);
  cleanups.push(() => raw.close());
  await createTopic(raw, TOPIC);
  const kafka = kafkaClient(server.bootstrap, 'rc-plain');
  const producer = kafka.producer();
  await producer.connect();
  cleanups.push(() => producer.disconnect());
  const plain = async (values: string[]) => void (await producer.send({ topic: TOPIC, acks: -1, messages: values.map((value) => ({ value, partition: 0 })) }));

  const [a, b, c] = [await initProducer(raw, 'rc-a'), await initProducer(raw, 'rc-b'), await initProducer(raw, 'rc-c')];
  const txn = async (p: RawProducer, id: string, prefix: string, baseSequence: number, count: number, at: bigint) => {
    const res = await produce(raw, TOPIC, id, batchOf({ ...p, baseSequence, count, transactional: true, prefix }));
    expect([res.errorCode, res.baseOffset]).toEqual([ErrorCode.NONE, at]);
  };
  const end = async (p: RawProducer, commit: boolean) => expect(markerError(await writeMarker(raw, { ...p, commit }, [{ topic: TOPIC, partitions: [0] }]))).toBe(ErrorCode.NONE);
  await txn(a, 'rc-a', 'a', 0, 3, 0n);
  await txn(b, 'rc-b', 'b', 0, 2, 3n);
  await end(a, true);
  await txn(a, 'rc-a', 'a', 3, 3, 6n);
  await end(b, false);
  await end(a, true);
  await plain(['plain-0', 'plain-1']);
  await txn(c, 'rc-c', 'c', 0, 1, 13n);
  await plain(['plain-2', 'plain-3']);
  return { bootstrap: server.bootstrap, raw, c, plain };
}

const commitC = async (log: Log) => expect(markerError(await writeMarker(log.raw, { ...log.c, commit: true }, [{ topic: TOPIC, partitions: [0] }]))).toBe(ErrorCode.NONE);

describe('read_committed consumers', () => {
  it('kafkajs: committed records in order, none past the open transaction until it commits; readUncommitted sees the aborted ones', async () => {
    const log = await writeLogWithCOpen();
    const kafka = kafkaClient(log.bootstrap, 'rc-consumer');
    const read = async (readUncommitted: boolean, until: number, onReached?: () => Promise<void>, finalCount = until) => {
      const consumer = kafka.consumer({ groupId: `rc-${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 100 });
      await consumer.connect();
      cleanups.push(() => consumer.disconnect());
      await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
      const values: string[] = [];
      const offsets: string[] = [];
      await consumer.run({
        eachMessage: async ({ message }) => {
          values.push(message.value!.toString());
          offsets.push(message.offset);
        },
      });
      await waitFor(() => values.length >= until, 30_000, `${until} records`);
      if (onReached) {
        expect(values).toEqual(COMMITTED_BEFORE_C);
        await onReached();
        await waitFor(() => values.length >= finalCount, 30_000, `${finalCount} records`);
      }
      await consumer.stop();
      return { values, offsets };
    };
    const committed = await read(false, COMMITTED_BEFORE_C.length, () => commitC(log), COMMITTED.length);
    expect(committed.values).toEqual(COMMITTED);
    expect(committed.offsets).toEqual(['0', '1', '2', '6', '7', '8', '11', '12', '13', '14', '15']);
    const everything = await read(true, EVERYTHING.length);
    expect(everything.values).toEqual(EVERYTHING);
  });

  describe.skipIf(python === null)('confluent-kafka (librdkafka)', () => {
    interface IsolationResult extends PythonClientResult {
      values: string[];
      offsets: number[];
    }
    const consume = (bootstrap: string, isolation: string) =>
      runPythonClient<IsolationResult>('librdkafka_isolation.py', [ISOLATION, '--bootstrap', bootstrap, '--topic', TOPIC, '--isolation', isolation], 90_000);

    it('read_committed stops at the last stable offset, then reads the committed records; read_uncommitted reads them all', async () => {
      const log = await writeLogWithCOpen();
      const open = await consume(log.bootstrap, 'read_committed');
      expect(open.values).toEqual(COMMITTED_BEFORE_C);
      await commitC(log);
      const committed = await consume(log.bootstrap, 'read_committed');
      expect(committed.values).toEqual(COMMITTED);
      expect(committed.offsets).toEqual([0, 1, 2, 6, 7, 8, 11, 12, 13, 14, 15]);
      const everything = await consume(log.bootstrap, 'read_uncommitted');
      expect(everything.values).toEqual(EVERYTHING);
    });
  });
});
