/**
 * Kafka Streams 4.3.1 with `processing.guarantee=exactly_once_v2` (test/clients/java WordCount: a
 * repartition topic, a changelogged in-memory store, transaction version 2's implicit partition adds
 * and TxnOffsetCommit) against the server (issue 13): the application is killed (SIGKILL) with a
 * transaction open, the coordinator aborts it when it times out (the manual clock moves past
 * `transaction.timeout.ms`), and a new instance, restoring its store from the changelog, ends with
 * exact counts: every word's counts read with read_committed are 1, 2, ..., n, none counted twice.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { describeJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { kafkaClient } from '../support/kafkajs.js';
import { startWordCount, type WordCountRun, until } from '../support/word-count.js';
import { TxnState, txnStateName } from '../../src/transactions/transaction-state.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});


const TOPICS = { input: 'wc-input', output: 'wc-output' };
const CHANGELOG = 'kmc-wordcount-counts-changelog';
const EOS = 'processing.guarantee=exactly_once_v2';
/** Counting this word stalls the first instance's stream thread: its changelog record is sent, its output record is not. */
const CRASH_WORD = 'boom';
/** The last record of each output partition, written once the application has stopped. */
const END = '\u0000end';

/** WordCount's tokenization: lower case, split on non-word characters. */
const words = (line: string): string[] => line.toLowerCase().split(/\W+/).filter((w) => w !== '');

function exactCounts(lines: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const w of lines.flatMap(words)) counts.set(w, (counts.get(w) ?? 0) + 1);
  return counts;
}

/** The counts of a Streams count store record (a Serdes.Long, after the timestamp when the store is timestamped). */
const countOf = (value: Buffer): bigint => value.readBigInt64BE(value.length - 8);

interface Scenario {
  server: Awaited<ReturnType<typeof startTestServer>>;
  stateDir: string;
  /** The transactional id whose transaction the crash left open, and its producer id and epoch then. */
  open: { transactionalId: string; producerId: bigint; producerEpoch: number };
  /**
   * Waits for the restarted `app` to count what was sent, sends `lines` and waits for their counts,
   * stops the application and checks every count it wrote: each word's are 1, 2, ..., n.
   */
  finish: (app: WordCountRun, lines: readonly string[]) => Promise<void>;
}

/**
 * A server on the manual clock; WordCount with exactly_once_v2 (and `settings`) counts a first batch,
 * then stalls on the crash word with a transaction open (the word's changelog record sent and
 * uncommitted) and is killed.
 */
async function crashMidTransaction(settings: string[]): Promise<Scenario> {
  // The manual clock: the crashed instance's member and its open transaction time out when the test says so.
  const server = await startTestServer({ clock: 'manual', config: { 'group.initial.rebalance.delay.ms': 0 } });
  cleanups.push(() => server.stop());
  const kafka = kafkaClient(server.bootstrap, 'wc-eos-test');
  const admin = kafka.admin();
  await admin.connect();
  cleanups.push(async () => { await admin.disconnect(); });
  await admin.createTopics({ topics: [{ topic: TOPICS.input, numPartitions: 2 }, { topic: TOPICS.output, numPartitions: 2 }] });
  const producer = kafka.producer();
  await producer.connect();
  cleanups.push(async () => { await producer.disconnect(); });
  const lines: string[] = [];
  const send = (batch: readonly string[]) => {
    const from = lines.push(...batch) - batch.length;
    return producer.send({ topic: TOPICS.input, messages: batch.map((value, i) => ({ key: `l${from + i}`, value })) });
  };

  // Every count of every word on the output topic, in order, as a read_committed consumer sees them.
  const seen = new Map<string, bigint[]>();
  const ended = new Set<number>();
  // Sessions of 60 s: the clock advances below end the crashed instance's (10 s), not these.
  const reader = kafka.consumer({ groupId: 'wc-committed', maxWaitTimeInMs: 100, sessionTimeout: 60_000, readUncommitted: false });
  await reader.connect();
  cleanups.push(async () => { await reader.disconnect(); });
  await reader.subscribe({ topic: TOPICS.output, fromBeginning: true });
  await reader.run({
    eachMessage: async ({ partition, message }) => {
      const word = message.key!.toString();
      if (word === END) ended.add(partition);
      else seen.set(word, [...(seen.get(word) ?? []), message.value!.readBigInt64BE(0)]);
    },
  });
  const latest = (word: string): bigint | undefined => seen.get(word)?.at(-1);
  const countsAre = (expected: Map<string, number>) => [...expected].every(([w, n]) => latest(w) === BigInt(n));
  const shown = () => JSON.stringify(Object.fromEntries([...seen].map(([w, c]) => [w, c.map(Number)])));

  const stateDir = mkdtempSync(join(tmpdir(), 'kmc-streams-eos-'));
  cleanups.push(() => rmSync(stateDir, { recursive: true, force: true }));

  const first = startWordCount(cleanups, server.bootstrap, TOPICS, stateDir, [EOS, ...settings, `kmc.crash.word=${CRASH_WORD}`]);
  await until(() => first.events.some((e) => e['state'] === 'RUNNING'), 'the first instance to run', first.output);
  await send(['the quick brown fox', 'jumps over the lazy dog', 'The End']);
  await until(() => countsAre(exactCounts(lines)), 'the first counts', () => `${shown()}\n${first.output()}`);

  // The latest count of each word in the changelog, committed or not.
  const changelog = new Map<string, bigint>();
  const uncommitted = kafka.consumer({ groupId: 'wc-changelog-uncommitted', maxWaitTimeInMs: 100, sessionTimeout: 60_000, readUncommitted: true });
  await uncommitted.connect();
  cleanups.push(async () => { await uncommitted.disconnect(); });
  await uncommitted.subscribe({ topic: CHANGELOG, fromBeginning: true });
  await uncommitted.run({ eachMessage: async ({ message }) => void changelog.set(message.key!.toString(), countOf(message.value!)) });

  // The second batch ends with the crash word: the stream thread stalls inside a transaction that
  // holds at least the word's changelog record; then the JVM is killed.
  await send(['hello world', 'the world again', `${CRASH_WORD} the end`]);
  await until(() => first.events.some((e) => e['event'] === 'crashing'), 'the first instance to stall on the crash word', first.output);
  await until(() => changelog.get(CRASH_WORD) === 1n, 'the crash word in the changelog, uncommitted', first.output);
  const ongoing = server.broker.transactions.all().filter((t) => t.state === TxnState.ONGOING);
  expect(ongoing.map((t) => t.transactionalId)).toEqual([expect.stringMatching(/^kmc-wordcount-[0-9a-f-]{36}-1$/)]);
  const txn = ongoing[0]!;
  expect(txn.fields.clientTransactionVersion).toBe(2);
  expect([...txn.fields.partitions.values()].some((p) => p.topic === CHANGELOG)).toBe(true);
  await first.kill();
  expect(seen.has(CRASH_WORD)).toBe(false);

  const finish = async (app: WordCountRun, batch: readonly string[]) => {
    await until(() => app.events.some((e) => e['state'] === 'RUNNING'), 'the second instance to run', app.output);
    // The second batch is processed again, whole, from the committed input offsets and changelog.
    await until(() => countsAre(exactCounts(lines)), 'the counts after the restart', () => `${shown()}\n${app.output()}`);
    await send(batch);
    const all = exactCounts(lines);
    await until(() => countsAre(all), 'the final counts', () => `${shown()}\n${app.output()}`);
    await app.stop();
    expect(app.events.some((e) => e['event'] === 'closed'), app.output()).toBe(true);
    // Everything the application wrote is before END on each partition: every count it committed, in order.
    await producer.send({ topic: TOPICS.output, messages: [0, 1].map((partition) => ({ partition, key: END, value: Buffer.alloc(8) })) });
    await until(() => ended.size === 2, 'the end of the output topic', shown);
    expect(Object.fromEntries(seen)).toEqual(Object.fromEntries([...all].map(([w, n]) => [w, Array.from({ length: n }, (_, i) => BigInt(i + 1))])));
    expect(changelog.get(CRASH_WORD)).toBe(1n);
  };
  return { server, stateDir, open: { transactionalId: txn.transactionalId, producerId: txn.producerId, producerEpoch: txn.producerEpoch }, finish };
}

describeJava('Kafka Streams exactly_once_v2', () => {
  it('a crash with a transaction open, a new transactional id after the restart: the transaction times out and is aborted; exact counts', async () => {
    // An in-memory store: the restarted instance gets a new process id, so a new transactional id.
    const s = await crashMidTransaction([]);
    // The transaction times out (Streams' transaction.timeout.ms is 10 s) and the crashed member's session (10 s) ends.
    await s.server.clock.advanceInSlices(25_000);
    await s.server.broker.transactions.flush();
    const aborted = s.server.broker.transactions.get(s.open.transactionalId)!;
    expect(txnStateName(aborted.state)).toBe('CompleteAbort');
    // Fenced and aborted with one epoch bump under transaction version 2, as Kafka 4.3's
    // abortTimedOutTransactions (checked against Kafka 4.3.1: the old producer's abort is then a retry).
    expect(aborted.producerEpoch).toBe(s.open.producerEpoch + 1);

    const second = startWordCount(cleanups, s.server.bootstrap, TOPICS, s.stateDir, [EOS]);
    await s.finish(second, ['hello again', 'the end']);
  }, 300_000);

  it('a crash with a transaction open, the same transactional id after the restart: its InitProducerId aborts the transaction; exact counts', async () => {
    // RocksDB: Streams keeps its process id in the state directory, so the restarted instance has the
    // crashed one's transactional id; a long transaction timeout leaves the abort to its InitProducerId.
    const s = await crashMidTransaction(['kmc.store=persistent', 'producer.transaction.timeout.ms=60000']);
    // The crashed member's session (10 s) ends; the transaction (60 s) stays open.
    await s.server.clock.advanceInSlices(11_000);
    expect(txnStateName(s.server.broker.transactions.get(s.open.transactionalId)!.state)).toBe('Ongoing');

    const second = startWordCount(cleanups, s.server.bootstrap, TOPICS, s.stateDir, [EOS, 'kmc.store=persistent', 'producer.transaction.timeout.ms=60000']);
    await s.finish(second, ['hello again', 'the end']);
    // The new instance's first InitProducerId found the transaction open: CONCURRENT_TRANSACTIONS while it was aborted, then the same producer id with a newer epoch.
    const inits = s.server.faults.requests({ api: 'InitProducerId' }).map((r) => r.error);
    expect(inits).toContain('CONCURRENT_TRANSACTIONS');
    const txn = s.server.broker.transactions.get(s.open.transactionalId)!;
    expect(txn.producerId).toBe(s.open.producerId);
    expect(txn.producerEpoch).toBeGreaterThan(s.open.producerEpoch + 1);
  }, 300_000);
});
