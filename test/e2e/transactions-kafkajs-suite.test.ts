/**
 * The scenarios of kafkajs's own transaction tests (kafkajs v2.2.4, tulios/kafkajs:
 * src/consumer/__tests__/consumeMessages.spec.js, describe 'transactions'; controlBatches.spec.js
 * (both tests); instrumentationEvents.spec.js 'emits start and end
 * batch process when reading empty control batches'), written here in our own words with kafkajs
 * 2.2.4's public API: the same producer and consumer settings (a transactional id,
 * `maxInFlightRequests: 1`, `maxWaitTimeInMs: 100`, the small fetch sizes of the control-batch
 * tests), the same sends, and the same checks on what eachMessage/eachBatch see, plus the exact
 * offsets (control records take one each) and the batches the consumer reports. Each `it` names the
 * test it mirrors. The originals themselves run with `scripts/kafkajs-suite.sh` (README "Clients
 * tested"). Like kafkajs's CI, against a cluster of three brokers (one simulated here).
 *
 * Where upstream differs: its producer and consumer share one internal `Cluster` object, so a
 * transaction's `sendOffsets` also marks the consumer's offsets as committed in memory; with the
 * public API each client has its own, so the consume-transform-produce scenarios check the group's
 * committed offsets on the server instead of the consumer's `uncommittedOffsets()` after the second
 * commit. And the tests wait for a transaction's markers (`transactions.flush()`, an event) where
 * upstream relies on timing: before a plain send whose offset is checked, and before a restarted
 * consumer reads its committed offset, which kafkajs 2.2.4 fetches without `require_stable`.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Consumer, EachBatchPayload, Kafka, Producer } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { kafkaClient, waitFor } from '../support/kafkajs.js';

type Server = Awaited<ReturnType<typeof startTestServer>>;
interface Sent { key: string; value: string }

let server: Server;
let kafka: Kafka;
const cleanups: Array<() => Promise<unknown> | void> = [];

beforeAll(async () => {
  server = await startTestServer({ brokers: 3 });
  kafka = kafkaClient(server.bootstrap, 'kmc-kafkajs-suite');
});
afterAll(async () => server?.stop());
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

let seq = 0;
/** A fresh name per test, as kafkajs's tests draw theirs at random. */
const unique = (what: string) => `${what}-${++seq}-${randomBytes(4).toString('hex')}`;

/** `n` records whose key and value carry `prefix` and their index (and some random bytes, ~200-byte batches). */
function records(prefix: string, n: number): Sent[] {
  return Array.from({ length: n }, (_, i) => {
    const tail = randomBytes(32).toString('hex');
    return { key: `key-${prefix}-${i}-${tail}`, value: `value-${prefix}-${i}-${tail}` };
  });
}

async function topic(): Promise<string> {
  const name = unique('txn-suite');
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: name, numPartitions: 1 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return name;
}

async function producer(options: { idempotent?: boolean } = {}): Promise<Producer> {
  const p = kafka.producer({ transactionalId: unique('transactional-id'), maxInFlightRequests: 1, ...options });
  await p.connect();
  cleanups.push(() => p.disconnect());
  return p;
}

function consumer(groupId: string, options: Partial<Parameters<Kafka['consumer']>[0]> = {}): Consumer {
  const c = kafka.consumer({ groupId, maxWaitTimeInMs: 100, ...options });
  cleanups.push(() => c.disconnect());
  return c;
}

/** Resolves at the consumer's next GROUP_JOIN (register before `run`). */
function joined(c: Consumer): Promise<void> {
  return new Promise((resolve) => {
    const off = c.on(c.events.GROUP_JOIN, () => {
      off();
      resolve();
    });
  });
}

/** A consumer of `t` in a new group (`maxWaitTimeInMs: 100` and `options`) that records what eachMessage sees; resolves once it joined. */
async function consumeEachMessage(t: string, options: Partial<Parameters<Kafka['consumer']>[0]> = {}): Promise<Seen> {
  const c = consumer(unique('group'), options);
  await c.connect();
  await c.subscribe({ topic: t, fromBeginning: true });
  const seen: Seen = [];
  const join = joined(c);
  await c.run({ eachMessage: async ({ message }) => void seen.push([message.offset, message.value!.toString()]) });
  await join;
  return seen;
}

/** `[offset, value]` of what the handler saw. */
type Seen = Array<[string, string]>;
const values = (sent: readonly Sent[]) => sent.map((m) => m.value);
const offsets = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/**
 * Waits until the transactions just ended have their markers. EndTxn answers once the outcome is
 * decided, and the markers follow (as on Kafka, where a plain record sent right after EndTxn can
 * land before the marker); the tests that check exact offsets wait for them first.
 */
const markersWritten = () => server.broker.transactions.flush();

/** One transaction of `p`: `sendBatch` of `messages` to `t`, then commit or abort. */
async function transact(p: Producer, t: string, messages: Sent[], end: 'commit' | 'abort'): Promise<void> {
  const txn = await p.transaction();
  await txn.sendBatch({ topicMessages: [{ topic: t, messages }] });
  await txn[end]();
}

async function committedOffset(groupId: string, t: string): Promise<string> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [entry] = await admin.fetchOffsets({ groupId, topics: [t] });
    return entry!.partitions[0]!.offset;
  } finally {
    await admin.disconnect();
  }
}

/**
 * The consumer of both consume-transform-produce tests: eachBatch without auto-commit, recording
 * each message's value and, after resolving it, `uncommittedOffsets()`; resolves once it joined.
 * `reset` clears the records before a restart.
 */
async function consumeTracked(t: string, groupId: string, options: Partial<Parameters<Kafka['consumer']>[0]> = {}) {
  const state = { seen: [] as string[], uncommitted: [] as Array<ReturnType<EachBatchPayload['uncommittedOffsets']>>, current: null as null | EachBatchPayload['uncommittedOffsets'] };
  const eachBatch = async ({ batch, uncommittedOffsets, heartbeat, resolveOffset }: EachBatchPayload) => {
    for (const message of batch.messages) {
      state.seen.push(message.value!.toString());
      resolveOffset(message.offset);
      state.uncommitted.push(uncommittedOffsets());
      state.current = uncommittedOffsets;
    }
    await heartbeat();
  };
  const c = consumer(groupId, options);
  await c.connect();
  await c.subscribe({ topic: t, fromBeginning: true });
  const join = joined(c);
  await c.run({ autoCommit: false, eachBatch });
  await join;
  return { c, state, eachBatch, reset: () => ((state.seen = []), (state.uncommitted = [])) };
}

describe("kafkajs 2.2.4's own transaction tests, in our words", () => {
  it('consumeMessages.spec.js › transactions › accepts messages from an idempotent producer', async () => {
    const t = await topic();
    const p = await producer({ idempotent: true });
    const seen = await consumeEachMessage(t);

    const sent = records('idempotent', 100);
    await p.sendBatch({ topicMessages: [{ topic: t, messages: sent }] });
    await waitFor(() => seen.length >= 100, 60_000, '100 idempotent records');

    expect(seen.map(([, v]) => v)).toEqual(values(sent));
    expect(seen.map(([o]) => o)).toEqual(offsets(0, 99));
  });

  it('consumeMessages.spec.js › transactions › accepts messages from committed transactions', async () => {
    const t = await topic();
    const p = await producer();
    const seen = await consumeEachMessage(t);

    const plain1 = records('nontransactional1', 1);
    const txn1Records = records('txn1', 100);
    const txn2Records = records('txn2', 100);
    const plain2 = records('nontransactional2', 1);
    await p.sendBatch({ topicMessages: [{ topic: t, messages: plain1 }] });
    await transact(p, t, txn1Records, 'commit');
    await transact(p, t, txn2Records, 'commit');
    await markersWritten();
    await p.sendBatch({ topicMessages: [{ topic: t, messages: plain2 }] });
    await waitFor(() => seen.length >= 202, 60_000, '202 records');

    expect(seen.map(([, v]) => v)).toEqual([...values(plain1), ...values(txn1Records), ...values(txn2Records), ...values(plain2)]);
    // 0: plain, 1-100: txn1, 101: COMMIT, 102-201: txn2, 202: COMMIT, 203: plain.
    expect(seen.map(([o]) => o)).toEqual(['0', ...offsets(1, 100), ...offsets(102, 201), '203']);
  });

  it('consumeMessages.spec.js › transactions › does not receive aborted messages', async () => {
    const t = await topic();
    const p = await producer();
    const seen = await consumeEachMessage(t);

    const aborted1 = records('aborted-txn-1', 100);
    const aborted2 = records('aborted-txn-2', 100);
    const plain = records('nontransactional', 1);
    const committed = records('committed-txn', 10);
    await transact(p, t, aborted1, 'abort');
    await markersWritten();
    await p.sendBatch({ topicMessages: [{ topic: t, messages: plain }] });
    await transact(p, t, aborted2, 'abort');
    await transact(p, t, committed, 'commit');
    await waitFor(() => seen.length >= 11, 60_000, '11 records');
    await markersWritten();
    const end = kafka.admin();
    await end.connect();
    cleanups.push(() => end.disconnect());
    expect(await end.fetchTopicOffsets(t)).toEqual([expect.objectContaining({ partition: 0, high: '214' })]);

    // 0-99 aborted, 100 ABORT, 101 plain, 102-201 aborted, 202 ABORT, 203-212 committed, 213 COMMIT.
    expect(seen).toEqual([[ '101', plain[0]!.value ], ...committed.map((m, i): [string, string] => [String(203 + i), m.value])]);
  });

  it('consumeMessages.spec.js › transactions › receives aborted messages for an isolation level of READ_UNCOMMITTED', async () => {
    const t = await topic();
    const p = await producer();
    const seen = await consumeEachMessage(t, { readUncommitted: true });

    const aborted = records('aborted-txn1', 100);
    await transact(p, t, aborted, 'abort');
    await waitFor(() => seen.length >= 100, 60_000, '100 aborted records');

    expect(seen.map(([, v]) => v)).toEqual(values(aborted));
    expect(seen.map(([o]) => o)).toEqual(offsets(0, 99));
  });

  it('consumeMessages.spec.js › transactions › respects offsets sent by a committed transaction ("consume-transform-produce" flow)', async () => {
    const t = await topic();
    const groupId = unique('group');
    const p = await producer();
    const { c, state, eachBatch, reset } = await consumeTracked(t, groupId);

    const sent = records('ctp', 100).map((m) => ({ ...m, partition: 0 }));
    await p.send({ acks: 1, topic: t, messages: sent });
    await waitFor(() => state.seen.length >= 100, 60_000, '100 records');
    expect(state.seen).toEqual(values(sent));
    expect(state.uncommitted).toHaveLength(100);
    expect(state.uncommitted[97]).toEqual({ topics: [{ topic: t, partitions: [{ partition: '0', offset: '98' }] }] });

    const txn = await p.transaction();
    await txn.sendOffsets({ consumerGroupId: groupId, topics: state.uncommitted[97]!.topics });
    await txn.commit();
    await markersWritten();
    expect(await committedOffset(groupId, t)).toBe('98');

    await c.stop();
    reset();
    await c.run({ autoCommit: false, eachBatch });
    await waitFor(() => state.seen.length >= 2, 60_000, 'the records after the committed offset');
    expect(state.seen).toEqual(values(sent.slice(98)));
    const last = state.uncommitted.at(-1)!;
    expect(state.current!()).toEqual(last);
    expect(state.current!()).toEqual({ topics: [{ topic: t, partitions: [{ partition: '0', offset: '100' }] }] });

    const txn2 = await p.transaction();
    await txn2.sendOffsets({ consumerGroupId: groupId, topics: last.topics });
    await txn2.commit();
    await markersWritten();
    expect(await committedOffset(groupId, t)).toBe('100');
  });

  it('consumeMessages.spec.js › transactions › does not respect offsets sent by an aborted transaction ("consume-transform-produce" flow)', async () => {
    const t = await topic();
    const groupId = unique('group');
    const p = await producer();
    const { c, state, eachBatch, reset } = await consumeTracked(t, groupId, { readUncommitted: false });

    const sent = records('ctp', 100).map((m) => ({ ...m, partition: 0 }));
    await p.send({ acks: 1, topic: t, messages: sent });
    await waitFor(() => state.seen.length >= 100, 60_000, '100 records');
    await c.stop();
    expect(state.seen).toEqual(values(sent));
    expect(state.uncommitted).toHaveLength(100);

    const txn = await p.transaction();
    await txn.sendOffsets({ consumerGroupId: groupId, topics: state.uncommitted[98]!.topics });
    await txn.abort();
    await markersWritten();
    expect(await committedOffset(groupId, t)).toBe('-1');

    reset();
    await c.run({ autoCommit: false, eachBatch });
    await waitFor(() => state.seen.length >= 100, 60_000, 'all records again after the abort');
    expect(state.seen).toEqual(values(sent));
    const last = state.uncommitted.at(-1)!;
    expect(state.current!()).toEqual(last);
    expect(state.current!()).toEqual({ topics: [{ topic: t, partitions: [{ partition: '0', offset: '100' }] }] });
  });

  it('controlBatches.spec.js › forwards empty control batches to eachBatch', async () => {
    const t = await topic();
    const p = await producer({ idempotent: true });
    // maxBytes 170: each fetch carries one record batch (each is ~200 bytes), so the COMMIT marker
    // comes alone, in a batch with no messages the consumer must step over.
    const c = consumer(unique('group'), { maxBytes: 170, maxBytesPerPartition: 170 });
    const batches: Array<[string | null, string, number]> = [];
    c.on(c.events.START_BATCH_PROCESS, ({ payload }) => void batches.push([payload.firstOffset, payload.lastOffset, payload.batchSize]));
    await c.connect();
    await c.subscribe({ topic: t, fromBeginning: true });
    const seen: Seen = [];
    const join = joined(c);
    await c.run({
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        for (const message of batch.messages) {
          if (!isRunning() || isStale()) break;
          seen.push([message.offset, message.value!.toString()]);
          resolveOffset(message.offset);
          await heartbeat();
        }
      },
    });
    await join;

    const inTxn = records('txn', 20);
    const txn = await p.transaction();
    for (const m of inTxn) await txn.send({ topic: t, messages: [m] });
    await txn.commit();
    await waitFor(() => seen.length >= 20, 60_000, '20 transactional records');
    const after = records('plain', 2);
    await p.send({ topic: t, messages: after });
    await waitFor(() => seen.length >= 22, 60_000, 'the 2 records after the COMMIT marker');

    expect(seen).toEqual([...inTxn, ...after].map((m, i): [string, string] => [String(i < 20 ? i : i + 1), m.value]));
    expect(batches).toEqual([...Array.from({ length: 20 }, (_, i): [string, string, number] => [String(i), String(i), 1]), ['20', '20', 0], ['21', '22', 2]]);
  });

  it('controlBatches.spec.js › can process transactions across multiple batches', async () => {
    const t = await topic();
    const p = await producer({ idempotent: true });
    const c = consumer(unique('group'), { maxBytes: 170, maxBytesPerPartition: 170 });
    const ends: Array<[string | null, string, number]> = [];
    c.on(c.events.END_BATCH_PROCESS, ({ payload }) => void ends.push([payload.firstOffset, payload.lastOffset, payload.batchSize]));
    await c.connect();
    await c.subscribe({ topic: t, fromBeginning: true });
    await c.run({ eachMessage: async () => {} });

    const message = { key: 'test', value: randomBytes(170) };
    const txn = await p.transaction();
    await txn.send({ topic: t, messages: [message, message] });
    await txn.abort();
    await waitFor(() => ends.some(([, last]) => last === '2'), 60_000, 'the batch of the ABORT marker');

    // Two fetches of one batch each: the aborted pair (0-1), then the marker (2); no message in either.
    expect(ends).toEqual([['0', '1', 0], ['2', '2', 0]]);
  });

  it('instrumentationEvents.spec.js › emits start and end batch process when reading empty control batches', async () => {
    const t = await topic();
    const c = consumer(unique('group'), { heartbeatInterval: 100, maxWaitTimeInMs: 500, maxBytesPerPartition: 180, rebalanceTimeout: 1000 });
    const starts: unknown[] = [];
    const ends: unknown[] = [];
    c.on(c.events.START_BATCH_PROCESS, ({ payload }) => void starts.push(payload));
    c.on(c.events.END_BATCH_PROCESS, ({ payload }) => void ends.push(payload));
    await c.connect();
    await c.subscribe({ topic: t, fromBeginning: true });
    await c.run({ eachMessage: async () => {} });

    const p = await producer({ idempotent: true });
    const txn = await p.transaction();
    await txn.send({ topic: t, acks: -1, messages: [{ key: 'test', value: 'test' }] });
    await txn.abort();
    await waitFor(() => starts.length > 0 && ends.length > 0, 60_000, 'the batch events');

    // The aborted record (0) and the ABORT marker (1) in one fetch: a batch of no messages.
    const batch = { topic: t, partition: 0, highWatermark: '2', offsetLag: '0', offsetLagLow: '1', batchSize: 0, firstOffset: '0', lastOffset: '1' };
    expect(starts).toEqual([batch]);
    expect(ends).toEqual([{ ...batch, duration: expect.any(Number) }]);
  });
});
