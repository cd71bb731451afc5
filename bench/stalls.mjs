// Hostile inputs against one server (issue #16 item 5): while each runs on its own connection,
// a probe (a worker thread, so this process's own encoding and decoding of the big requests does
// not delay it) commits one offset at a time on another connection; per scenario it prints the big
// request's wall time and the probe's commit count, p99 and max latency during it. Not part of
// `npm run bench` (its numbers are only meaningful beside each other, on one machine and load).
//
// Env: STALL_SCENARIOS (comma list of names below; default all), STALL_PARTITIONS (200000: the
// partitions of the wide scenarios, in topics of 9,999), STALL_GROUPS (100000), STALL_CLI
// (another build's dist/cli.js), STALL_DISK (1: a data directory; default in memory), STALL_FLUSH
// (`mock.flush.policy`; default never), STALL_CONFIG (comma list of more `key=value` configs).
import { Worker } from 'node:worker_threads';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchClient, CLI, envInt, envList, fmt, percentile, startCliServer, stopChild } from './lib.mjs';
import { encodeRecordBatch } from '../dist/records/record-batch.js';

const PARTITIONS = envInt('STALL_PARTITIONS', 200_000);
const GROUPS = envInt('STALL_GROUPS', 100_000);
// A topic and its partitions are at most 10,000 controller records (Kafka's MAX_RECORDS_PER_USER_OP).
const PER_TOPIC = 9_999;
const TOPICS = Math.ceil(PARTITIONS / PER_TOPIC);
const ZERO_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const topicName = (i) => `wide-${i}`;
const wide = (fn) => Array.from({ length: TOPICS }, (_, t) => ({ name: topicName(t), partitions: Array.from({ length: Math.min(PER_TOPIC, PARTITIONS - t * PER_TOPIC) }, (_, p) => fn(p)) }));
const commitPart = (p) => ({ partitionIndex: p, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' });

const PROBE = `
import { parentPort, workerData } from 'node:worker_threads';
import { BenchClient } from ${JSON.stringify(new URL('./lib.mjs', import.meta.url).href)};
const c = await BenchClient.connect(workerData.port);
const samples = [];
let stop = false;
parentPort.on('message', (m) => { if (m === 'stop') stop = true; if (m === 'mark') parentPort.postMessage({ mark: performance.timeOrigin + performance.now() }); });
parentPort.postMessage('ready');
let offset = 0n;
while (!stop) {
  const t0 = performance.timeOrigin + performance.now();
  await c.send(8, 8, { groupId: 'probe', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'probe', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: offset++, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
  samples.push([t0, performance.timeOrigin + performance.now() - t0]);
}
parentPort.postMessage({ samples });
c.close();
`;

const SCENARIOS = {
  'offset-fetch-all': (c) => c.send(9, 8, { groupId: '', topics: [], groups: [{ groupId: 'g-wide', memberId: null, memberEpoch: -1, topics: null }], requireStable: false }),
  'offset-fetch-named': (c) => c.send(9, 8, { groupId: '', topics: [], groups: [{ groupId: 'g-wide', memberId: null, memberEpoch: -1, topics: wide((p) => p).map((t) => ({ name: t.name, partitionIndexes: t.partitions })) }], requireStable: false }),
  'offset-commit': (c) => c.send(8, 8, { groupId: 'g-wide2', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: wide(commitPart).map((t) => ({ ...t, topicId: ZERO_ID })) }),
  // One batch's worth (under message.max.bytes): 9,999 partitions, written.
  'offset-commit-batch': (c) => c.send(8, 8, { groupId: 'g-batch', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: wide(commitPart).slice(0, 1).map((t) => ({ ...t, topicId: ZERO_ID })) }),
  'txn-offset-commit': async (c) => {
    const init = await c.send(22, 4, { transactionalId: 'stall-txn', transactionTimeoutMs: 600000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    const ids = { transactionalId: 'stall-txn', producerId: init.producerId, producerEpoch: init.producerEpoch };
    await c.send(25, 3, { ...ids, groupId: 'g-txn' });
    // One batch's worth (message.max.bytes): 9,999 partitions.
    const r = await c.send(28, 3, { ...ids, groupId: 'g-txn', generationId: -1, memberId: '', groupInstanceId: null, topics: wide(commitPart).slice(0, 1) });
    await c.send(26, 3, { ...ids, committed: true });
    return r;
  },
  'list-offsets': (c) => c.send(2, 9, { replicaId: -1, isolationLevel: 1, timeoutMs: 30000, topics: wide((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: BigInt(process.env.STALL_TIMESTAMP ?? -1) })) }),
  'fetch': (c) => c.send(1, 12, { clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 52428800, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [], topics: wide((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1048576, replicaDirectoryId: ZERO_ID, highWatermark: -1n })).map((t) => ({ topic: t.name, topicId: ZERO_ID, partitions: t.partitions })) }),
  'produce': (c) => {
    const records = Buffer.from(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v'), headers: [] }] }));
    return c.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: wide((p) => ({ index: p, records })).map((t) => ({ name: t.name, topicId: ZERO_ID, partitionData: t.partitions })) });
  },
  // A transaction's first batch to every partition (Produce v12: each partition is added to the transaction as it is verified).
  'produce-txn': async (c) => {
    const init = await c.send(22, 4, { transactionalId: 'stall-produce-txn', transactionTimeoutMs: 600000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    const records = Buffer.from(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, attributes: 0x10, producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0, records: [{ key: null, value: Buffer.from('v') }] }));
    const r = await c.send(0, 12, { transactionalId: 'stall-produce-txn', acks: -1, timeoutMs: 30000, topicData: wide((p) => ({ index: p, records })).map((t) => ({ name: t.name, topicId: ZERO_ID, partitionData: t.partitions })) });
    await c.send(26, 5, { transactionalId: 'stall-produce-txn', producerId: init.producerId, producerEpoch: init.producerEpoch, committed: false });
    return r;
  },
  // Partitions of a topic that does not exist: every one answered with an error.
  'produce-unknown': (c) => {
    const records = Buffer.from(encodeRecordBatch({ baseOffset: 0n, timestamp: 1_700_000_000_000n, records: [{ key: null, value: Buffer.from('v') }] }));
    return c.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 30000, topicData: wide((p) => ({ index: p, records })).map((t) => ({ name: `no-such-${t.name}`, topicId: ZERO_ID, partitionData: t.partitions })) });
  },
  'fetch-unknown': (c) => c.send(1, 13, { clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 52428800, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [], topics: wide((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1048576, replicaDirectoryId: ZERO_ID, highWatermark: -1n })).map((t) => ({ topic: t.name, topicId: 'AQEBAQEBAQEBAQEBAQEBAQ', partitions: t.partitions })) }),
  'delete-records': (c) => c.send(21, 2, { timeoutMs: 30000, topics: wide((p) => ({ partitionIndex: p, offset: 0n })) }),
  'offset-delete': (c) => c.send(47, 0, { groupId: 'g-wide', topics: wide((p) => ({ partitionIndex: p })) }),
  'metadata-all': (c) => c.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }),
  'metadata-named': (c) => c.send(3, 12, { topics: Array.from({ length: GROUPS }, (_, i) => ({ topicId: ZERO_ID, name: `no-such-${i}` })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }),
  'describe-configs': (c) => c.send(32, 4, { includeSynonyms: true, includeDocumentation: true, resources: Array.from({ length: GROUPS }, (_, i) => ({ resourceType: 2, resourceName: i < TOPICS ? topicName(i) : `no-such-${i}`, configurationKeys: null })) }),
  'describe-log-dirs': (c) => c.send(35, 4, { topics: null }),
  'list-groups': (c) => c.send(16, 5, { statesFilter: [], typesFilter: [] }),
  'delete-groups': (c) => c.send(42, 2, { groupsNames: Array.from({ length: GROUPS }, (_, i) => `g-many-${i}`) }),
  'describe-transactions': (c) => c.send(65, 0, { transactionalIds: Array.from({ length: 400 }, (_, i) => `${'t'.repeat(32000)}-${i}`) }),
  'list-transactions': (c) => c.send(66, 1, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: null }),
  // As a broker sends it (v4+): 50,000 transactions of one partition each, ids unknown here.
  'add-partitions-to-txn': (c) => c.send(24, 5, {
    transactions: Array.from({ length: 50_000 }, (_, i) => ({ transactionalId: `stall-${i}`, producerId: BigInt(i), producerEpoch: 0, verifyOnly: true, topics: [{ name: topicName(0), partitions: [i % PER_TOPIC] }] })),
    v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
  }),
};

async function setup(c, names) {
  const need = (...n) => n.some((x) => names.includes(x));
  const t0 = Date.now();
  await c.send(19, 7, { timeoutMs: 60000, validateOnly: false, topics: [{ name: 'probe', numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] }] });
  for (let t = 0; t < TOPICS; t++) {
    const r = await c.send(19, 7, { timeoutMs: 60000, validateOnly: false, topics: [{ name: topicName(t), numPartitions: Math.min(PER_TOPIC, PARTITIONS - t * PER_TOPIC), replicationFactor: -1, assignments: [], configs: [] }] });
    if (r.topics[0].errorCode !== 0) throw new Error(`CreateTopics ${topicName(t)}: ${r.topics[0].errorCode}`);
  }
  if (need('offset-fetch-all', 'offset-fetch-named', 'offset-delete')) {
    for (let t = 0; t < TOPICS; t++) {
      const topics = wide(commitPart).slice(t, t + 1).map((x) => ({ ...x, topicId: ZERO_ID }));
      const r = await c.send(8, 8, { groupId: 'g-wide', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics });
      if (r.topics[0].partitions[0].errorCode !== 0) throw new Error(`OffsetCommit: ${r.topics[0].partitions[0].errorCode}`);
    }
  }
  if (need('list-groups', 'delete-groups')) {
    const clients = await Promise.all(Array.from({ length: 8 }, () => BenchClient.connect(c.socket.remotePort)));
    await Promise.all(clients.map(async (k, j) => {
      for (let i = j; i < GROUPS; i += clients.length) {
        await k.send(8, 8, { groupId: `g-many-${i}`, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'probe', topicId: ZERO_ID, partitions: [commitPart(0)] }] });
      }
      k.close();
    }));
  }
  if (need('describe-transactions', 'list-transactions')) {
    for (let i = 0; i < 400; i++) await c.send(22, 4, { transactionalId: `${'t'.repeat(32000)}-${i}`, transactionTimeoutMs: 600000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
  }
  return Date.now() - t0;
}

function summary(value) {
  if (value === undefined || value === null || typeof value !== 'object') return String(value);
  const counts = new Map();
  const walk = (v, depth) => {
    if (depth > 5 || v === null || typeof v !== 'object' || v instanceof Uint8Array) return;
    if (Array.isArray(v)) return v.forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'errorCode' || k === 'partitionErrorCode') && typeof x === 'number') counts.set(x, (counts.get(x) ?? 0) + 1);
      else walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return [...counts].map(([code, n]) => `${code}x${n}`).join(' ');
}

async function main() {
  const names = envList('STALL_SCENARIOS', Object.keys(SCENARIOS));
  for (const n of names) if (!SCENARIOS[n]) throw new Error(`unknown scenario ${n}`);
  const dir = mkdtempSync(join(tmpdir(), 'kmc-stalls-'));
  const { child, port } = await startCliServer(['--port', '0', '--no-admin', ...(process.env.STALL_DISK ? ['--data-dir', dir] : ['--in-memory']), '--config', `mock.flush.policy=${process.env.STALL_FLUSH || 'never'}`, ...envList('STALL_CONFIG', []).flatMap((c) => ['--config', c])], { cli: process.env.STALL_CLI || CLI });
  try {
    const c = await BenchClient.connect(port);
    console.log(`setup: ${await setup(c, names)} ms (${PARTITIONS} partitions in ${TOPICS} topics, ${GROUPS} groups)`);
    const probe = new Worker(PROBE, { eval: true, workerData: { port } });
    await new Promise((resolve) => probe.once('message', resolve));
    const marks = [];
    const mark = () => new Promise((resolve) => { probe.once('message', (m) => resolve(m.mark)); probe.postMessage('mark'); });
    for (const name of names) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const from = await mark();
      let res;
      try {
        res = summary(await SCENARIOS[name](c));
      } catch (err) {
        res = `failed: ${err.message}`;
      }
      const to = await mark();
      marks.push({ name, from, to, res });
    }
    const done = new Promise((resolve) => probe.on('message', (m) => m.samples && resolve(m.samples)));
    probe.postMessage('stop');
    const samples = await done;
    await probe.terminate();
    console.log('scenario | request ms | probe commits during | probe p99 ms | probe max ms | errors in the answer');
    for (const m of marks) {
      const during = samples.filter(([t0, ms]) => t0 + ms >= m.from && t0 <= m.to).map(([, ms]) => ms).sort((a, b) => a - b);
      console.log(`${m.name} | ${fmt(m.to - m.from, 0)} | ${during.length} | ${fmt(percentile(during, 99), 1)} | ${fmt(during.at(-1), 1)} | ${m.res}`);
    }
    c.close();
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
