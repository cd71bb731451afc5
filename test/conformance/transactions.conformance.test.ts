/**
 * Conformance of the transaction coordinator: InitProducerId with a transactional id,
 * AddPartitionsToTxn (v1 and v3), AddOffsetsToTxn, TxnOffsetCommit with OffsetFetch requireStable,
 * EndTxn (commit, repeat, abort after commit, fenced epochs), fencing of an open transaction,
 * DescribeTransactions and ListTransactions. Producer ids differ between brokers: the traces
 * name them `<pid>` (or `<pid+n>` relative to the scenario's first one).
 */
import { describe } from 'vitest';
import { scenario, sleep, useTargets, type Session } from './runner.js';

useTargets();

const RETRIABLE = new Set([14, 15, 16, 51]); // COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR, CONCURRENT_TRANSACTIONS

/** Waits until the transactional id's coordinator answers, then initializes it (neither recorded). */
async function ready(s: Session, transactionalId: string, timeoutMs = 60_000): Promise<{ producerId: bigint; producerEpoch: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const fc = await s.send(10, 3, { key: transactionalId, keyType: 1, coordinatorKeys: [] });
    if (fc.errorCode === 0) break;
    if (Date.now() > deadline) throw new Error(`${s.target}: no transaction coordinator for ${transactionalId}`);
    await sleep(200);
  }
  return initUntilDone(s, transactionalId, timeoutMs);
}

/** InitProducerId, retried while the coordinator answers a retriable error (not recorded). */
async function initUntilDone(s: Session, transactionalId: string, timeoutMs = 60_000): Promise<{ producerId: bigint; producerEpoch: number }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await s.send(22, 4, { transactionalId, transactionTimeoutMs: timeoutMs, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    if (!RETRIABLE.has(r.errorCode)) {
      if (r.errorCode !== 0) throw new Error(`${s.target}: InitProducerId ${r.errorCode}`);
      return { producerId: r.producerId, producerEpoch: r.producerEpoch };
    }
    if (Date.now() > deadline) throw new Error(`${s.target}: InitProducerId still ${r.errorCode}`);
    await sleep(100);
  }
}

/** A producer id relative to the scenario's reference one. */
const pidName = (pid: bigint, ref: bigint) => (pid < 0n ? `${pid}` : pid === ref ? '<pid>' : `<pid${pid > ref ? '+' : ''}${pid - ref}>`);

const addV3 = (transactionalId: string, producerId: bigint, producerEpoch: number, topics: Array<{ name: string; partitions: number[] }>) => ({
  transactions: [], v3AndBelowTransactionalId: transactionalId, v3AndBelowProducerId: producerId, v3AndBelowProducerEpoch: producerEpoch, v3AndBelowTopics: topics,
});

const txnCommit = (transactionalId: string, groupId: string, producerId: bigint, producerEpoch: number, topic: string, offset: bigint, generationId = -1) => ({
  transactionalId, groupId, producerId, producerEpoch, generationId, memberId: '', groupInstanceId: null,
  topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'txn' }] }],
});

/** OffsetFetch v7 of partition 0, retried while it is UNSTABLE_OFFSET_COMMIT (the marker follows EndTxn's answer). */
async function stableOffset(s: Session, groupId: string, topic: string): Promise<unknown> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await s.send(9, 7, { groupId, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: true });
    const p = r.topics[0]!.partitions[0]!;
    if (p.errorCode !== 88 || Date.now() > deadline) return r;
    await sleep(50);
  }
}

/** DescribeTransactions of one id with its producer id named, waiting while the transaction is being completed. */
async function describeSettled(s: Session, transactionalId: string, ref: bigint): Promise<unknown> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const r = await s.send(65, 0, { transactionalIds: [transactionalId] });
    const t = r.transactionStates[0]!;
    if (!t.transactionState.startsWith('Prepare') || Date.now() > deadline) {
      // Kafka lists the topics in hash order: compare them by name.
      const topics = [...t.topics].sort((x, y) => x.topic.localeCompare(y.topic));
      return { ...t, topics, producerId: pidName(t.producerId, ref), transactionStartTimeMs: t.transactionStartTimeMs >= 0n ? '<time>' : t.transactionStartTimeMs };
    }
    await sleep(50);
  }
}

describe('InitProducerId (transactional)', () => {
  scenario('epoch bumps, timeout bounds, empty id, KIP-360 producer ids (v3, v4)', async (s) => {
    const id = s.name('tx-init');
    const first = await ready(s, id);
    s.record('first epoch', first.producerEpoch);
    const init = async (label: string, version: number, body: { transactionalId: string | null; transactionTimeoutMs: number; producerId?: bigint; producerEpoch?: number }) => {
      const r = await s.send(22, version, { producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false, ...body });
      s.record(label, { errorCode: r.errorCode, producerId: pidName(r.producerId, first.producerId), producerEpoch: r.producerEpoch });
    };
    await init('again', 4, { transactionalId: id, transactionTimeoutMs: 60_000 });
    await init('timeout above transaction.max.timeout.ms', 4, { transactionalId: id, transactionTimeoutMs: 900_001 });
    await init('timeout 0', 4, { transactionalId: id, transactionTimeoutMs: 0 });
    await init('empty id', 4, { transactionalId: '', transactionTimeoutMs: 60_000 });
    await init('KIP-360 current id and epoch', 4, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: first.producerId, producerEpoch: first.producerEpoch + 1 });
    await init('KIP-360 another id (v4)', 4, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: first.producerId + 1000n, producerEpoch: 0 });
    await init('KIP-360 another id (v3)', 3, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: first.producerId + 1000n, producerEpoch: 0 });
  });
});

describe('AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn', () => {
  scenario('one transaction: errors of each API, pending offsets (requireStable), commit, repeat, abort after commit', async (s) => {
    const id = s.name('tx-flow');
    const topic = s.name('tx-flow-out');
    const group = s.name('tx-flow-group');
    await s.createTopic(topic, 2);
    const { producerId: pid, producerEpoch: epoch } = await ready(s, id);
    const add = async (label: string, version: number, producerId: bigint, producerEpoch: number, topics: Array<{ name: string; partitions: number[] }>) =>
      s.record(label, (await s.send(24, version, addV3(id, producerId, producerEpoch, topics))).resultsByTopicV3AndBelow);
    await add('unknown topic and partition', 3, pid, epoch, [{ name: topic, partitions: [0, 7] }, { name: s.name('tx-missing'), partitions: [0] }]);
    await add('internal topics (refused whatever the ACLs), beside an unknown and a known partition', 3, pid, epoch, [
      { name: '__transaction_state', partitions: [0] }, { name: '__consumer_offsets', partitions: [1] }, { name: topic, partitions: [0, 7] },
    ]);
    await add('internal topic (v1)', 1, pid, epoch, [{ name: '__consumer_offsets', partitions: [0] }]);
    await add('another producer id', 3, pid + 1000n, epoch, [{ name: topic, partitions: [0] }]);
    await add('an old epoch (v3)', 3, pid, epoch + 1, [{ name: topic, partitions: [0] }]);
    await add('an old epoch (v1)', 1, pid, epoch + 1, [{ name: topic, partitions: [0] }]);
    await add('added', 3, pid, epoch, [{ name: topic, partitions: [0, 1] }]);
    await add('added again', 3, pid, epoch, [{ name: topic, partitions: [0] }]);

    await s.call('TxnOffsetCommit before AddOffsetsToTxn', 28, 3, txnCommit(id, group, pid, epoch, topic, 7n));
    await s.call('AddOffsetsToTxn', 25, 3, { transactionalId: id, producerId: pid, producerEpoch: epoch, groupId: group });
    await s.call('AddOffsetsToTxn, old epoch (v1)', 25, 1, { transactionalId: id, producerId: pid, producerEpoch: epoch + 1, groupId: group });
    await s.call('TxnOffsetCommit with a generation of no group', 28, 3, txnCommit(id, group, pid, epoch, topic, 7n, 4));
    await s.call('TxnOffsetCommit', 28, 3, txnCommit(id, group, pid, epoch, topic, 7n));
    await s.call('OffsetFetch while pending', 9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: false });
    await s.call('OffsetFetch requireStable while pending', 9, 7, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], groups: [], requireStable: true });
    s.record('DescribeTransactions while ongoing', await describeSettled(s, id, pid));

    const end = async (label: string, version: number, producerEpoch: number, committed: boolean, transactionalId = id) => {
      const r = await s.send(26, version, { transactionalId, producerId: pid, producerEpoch, committed });
      s.record(label, { errorCode: r.errorCode, producerId: pidName(r.producerId, pid), producerEpoch: r.producerEpoch });
    };
    await end('EndTxn old epoch (v3)', 3, epoch + 1, true);
    await end('EndTxn old epoch (v1)', 1, epoch + 1, true);
    await end('EndTxn unknown id', 3, epoch, true, s.name('tx-unknown'));
    await end('EndTxn commit', 3, epoch, true);
    s.record('OffsetFetch requireStable after the commit', await stableOffset(s, group, topic));
    s.record('DescribeTransactions after the commit', await describeSettled(s, id, pid));
    await end('EndTxn commit again', 3, epoch, true);
    await end('EndTxn abort after commit', 3, epoch, false);
  });

  scenario('COMMIT marker beside plain commits: a later OffsetCommit is kept, an OffsetDelete drops the pending offset', async (s) => {
    const topic = s.name('tx-mat-out');
    await s.createTopic(topic, 1);
    const plain = (groupId: string, offset: bigint) => ({
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: topic, topicId: '', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, committedMetadata: 'plain' }] }],
    });
    const commitAfter = async (label: string, id: string, group: string, between: () => Promise<unknown>) => {
      const { producerId, producerEpoch } = await ready(s, id);
      await s.call(`${label}: AddOffsetsToTxn`, 25, 3, { transactionalId: id, producerId, producerEpoch, groupId: group });
      await s.call(`${label}: TxnOffsetCommit`, 28, 3, txnCommit(id, group, producerId, producerEpoch, topic, 5n));
      await between();
      const r = await s.send(26, 3, { transactionalId: id, producerId, producerEpoch, committed: true });
      s.record(`${label}: EndTxn commit`, r.errorCode);
      s.record(`${label}: OffsetFetch requireStable after the marker`, await stableOffset(s, group, topic));
    };
    const g1 = s.name('tx-mat-g1');
    await commitAfter('plain commit in between', s.name('tx-mat-a'), g1, () => s.call('OffsetCommit 10', 8, 8, plain(g1, 10n)));
    const g2 = s.name('tx-mat-g2');
    await commitAfter('OffsetDelete in between, no committed offset', s.name('tx-mat-b'), g2, () =>
      s.call('OffsetDelete', 47, 0, { groupId: g2, topics: [{ name: topic, partitions: [{ partitionIndex: 0 }] }] }),
    );
  });

  scenario('a new InitProducerId fences an open transaction: CONCURRENT_TRANSACTIONS, abort, bumped epoch', async (s) => {
    const id = s.name('tx-fence');
    const topic = s.name('tx-fence-out');
    await s.createTopic(topic, 1);
    const old = await ready(s, id);
    await s.send(24, 3, addV3(id, old.producerId, old.producerEpoch, [{ name: topic, partitions: [0] }]));
    const r = await s.send(22, 4, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    s.record('InitProducerId while ongoing', { errorCode: r.errorCode, producerEpoch: r.producerEpoch });
    s.record('DescribeTransactions after the fence', await describeSettled(s, id, old.producerId));
    const fresh = await initUntilDone(s, id);
    s.record('the new instance', { producerId: pidName(fresh.producerId, old.producerId), epochs: fresh.producerEpoch - old.producerEpoch });
    const add = await s.send(24, 1, addV3(id, old.producerId, old.producerEpoch, [{ name: topic, partitions: [0] }]));
    s.record('AddPartitionsToTxn of the old instance (v1)', add.resultsByTopicV3AndBelow);
    const endOld = await s.send(26, 1, { transactionalId: id, producerId: old.producerId, producerEpoch: old.producerEpoch, committed: true });
    s.record('EndTxn of the old instance (v1)', endOld.errorCode);
  });
});

describe('transaction version 2 (EndTxn v5, AddPartitionsToTxn v5)', () => {
  scenario('commit without a transaction, abort of an empty one, implicit add and verification, epoch bump per end, retried end', async (s) => {
    const id = s.name('tx-v2');
    const topic = s.name('tx-v2-out');
    await s.createTopic(topic, 1);
    const { producerId: pid, producerEpoch: epoch } = await ready(s, id);
    const end = async (label: string, producerEpoch: number, committed: boolean) => {
      const r = await s.send(26, 5, { transactionalId: id, producerId: pid, producerEpoch, committed });
      s.record(label, { errorCode: r.errorCode, producerId: pidName(r.producerId, pid), epochs: r.producerEpoch < 0 ? r.producerEpoch : r.producerEpoch - epoch });
    };
    await end('commit without a transaction', epoch, true);
    await end('abort of an empty transaction', epoch, false);
    s.record('after the empty abort', await describeSettled(s, id, pid));
    const batch = (verifyOnly: boolean, partitions: number[]) => ({
      transactions: [{ transactionalId: id, producerId: pid, producerEpoch: epoch + 1, verifyOnly, topics: [{ name: topic, partitions }] }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    });
    await s.call('verify before the add', 24, 5, batch(true, [0]));
    await s.call('add', 24, 5, batch(false, [0]));
    await s.call('verify after the add', 24, 5, batch(true, [0]));
    await end('commit', epoch + 1, true);
    s.record('after the commit', await describeSettled(s, id, pid));
    await end('the commit retried with the epoch it had', epoch + 1, true);
    await end('an abort with the epoch it had', epoch + 1, false);
  });
});

describe('transaction version 2: fences and resent ends', () => {
  scenario('a new instance fences an open version 2 transaction (one epoch bump); an EndTxn resent at once; unknown partitions in verify-only', async (s) => {
    const id = s.name('tx-v2f');
    const topic = s.name('tx-v2f-out');
    await s.createTopic(topic, 1);
    const old = await ready(s, id);
    const batch = (producerEpoch: number, verifyOnly: boolean, topics: Array<{ name: string; partitions: number[] }>) => ({
      transactions: [{ transactionalId: id, producerId: old.producerId, producerEpoch, verifyOnly, topics }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    });
    await s.call('verify-only of an unknown topic', 24, 5, batch(old.producerEpoch, true, [{ name: s.name('tx-v2f-none'), partitions: [0] }]));
    await s.call('verify-only of a partition beyond the count', 24, 5, batch(old.producerEpoch, true, [{ name: topic, partitions: [0, 1] }]));
    await s.call('add (version 2)', 24, 5, batch(old.producerEpoch, false, [{ name: topic, partitions: [0] }]));
    const r = await s.send(22, 4, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    s.record('InitProducerId while ongoing', { errorCode: r.errorCode, producerEpoch: r.producerEpoch });
    const fenced = (await describeSettled(s, id, old.producerId)) as { producerEpoch: number };
    s.record('after the fence', { ...fenced, producerEpoch: fenced.producerEpoch - old.producerEpoch });
    const fresh = await initUntilDone(s, id);
    s.record('the new instance', { producerId: pidName(fresh.producerId, old.producerId), epochs: fresh.producerEpoch - old.producerEpoch });
    const end = async (label: string, producerEpoch: number) => {
      const e = await s.send(26, 5, { transactionalId: id, producerId: fresh.producerId, producerEpoch, committed: true });
      s.record(label, { errorCode: e.errorCode, epochs: e.producerEpoch < 0 ? e.producerEpoch : e.producerEpoch - fresh.producerEpoch });
    };
    await s.send(24, 5, { ...batch(fresh.producerEpoch, false, [{ name: topic, partitions: [0] }]), transactions: [{ transactionalId: id, producerId: fresh.producerId, producerEpoch: fresh.producerEpoch, verifyOnly: false, topics: [{ name: topic, partitions: [0] }] }] });
    await end('commit', fresh.producerEpoch);
    // Resent at once: CONCURRENT_TRANSACTIONS while the markers are being written, NONE once they
    // are; which one depends on the broker's speed, so only "not fenced" is compared.
    const resent = await s.send(26, 5, { transactionalId: id, producerId: fresh.producerId, producerEpoch: fresh.producerEpoch, committed: true });
    s.record('the same commit resent at once', { fenced: resent.errorCode !== 51 && resent.errorCode !== 0 });
  });
});

describe('DescribeTransactions, ListTransactions', () => {
  scenario('unknown and empty ids; list with state and pattern filters', async (s) => {
    const a = s.name('tx-list-a');
    const b = s.name('tx-list-b');
    const topic = s.name('tx-list-out');
    await s.createTopic(topic, 1);
    const pa = await ready(s, a);
    await ready(s, b);
    await s.send(24, 3, addV3(a, pa.producerId, pa.producerEpoch, [{ name: topic, partitions: [0] }]));
    const d = await s.send(65, 0, { transactionalIds: [s.name('tx-list-unknown'), ''] });
    s.record('DescribeTransactions unknown and empty', d);
    const list = async (label: string, version: number, stateFilters: string[]) => {
      const r = await s.send(66, version, { stateFilters, producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: version >= 2 ? `.*${s.name('')}` : null });
      const mine = r.transactionStates.filter((t) => t.transactionalId.endsWith(s.name(''))).map((t) => ({ transactionalId: t.transactionalId, transactionState: t.transactionState }));
      s.record(label, { errorCode: r.errorCode, unknownStateFilters: r.unknownStateFilters, transactionStates: mine.sort((x, y) => x.transactionalId.localeCompare(y.transactionalId)) });
    };
    await list('ListTransactions v0 all', 0, []);
    await list('ListTransactions v2 pattern', 2, []);
    await list('ListTransactions v2 Ongoing and an unknown state', 2, ['Ongoing', 'Bogus']);
    const bad = await s.send(66, 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: '(' });
    s.record('ListTransactions invalid pattern', { errorCode: bad.errorCode, count: bad.transactionStates.length });
  });
});
