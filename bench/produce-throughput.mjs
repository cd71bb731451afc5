// Produce and fetch throughput of one client on one partition, ours beside the echo floor and the
// peers of bench/peers.mjs, the servers measured in turn (A B A B) with the same client.
//
// Produce: one connection, Produce v9 with acks=-1, each request one uncompressed batch of
// BENCH_PRODUCE_BATCH_RECORDS records of BENCH_PRODUCE_RECORD_BYTES-byte values (no key), with
// BENCH_PRODUCE_DEPTH requests in flight (the Java producer's and librdkafka's default
// max.in.flight is 5). The same batch bytes are sent every time (no producer id, so no sequence
// to keep). A window ends after BENCH_PRODUCE_SECONDS or BENCH_PRODUCE_MAX_MIB acknowledged, so a
// fast in-memory peer holds a bounded log. MB/s counts record batch bytes acknowledged.
// Fetch: then one connection reads the partition back from offset 0 with Fetch v12 (one request
// in flight, partition max 1 MiB as Kafka's consumer default, wrapping to the start at the end),
// for BENCH_PRODUCE_SECONDS; MB/s counts record bytes returned.
// Ours runs with `mock.flush.policy=never` on a data directory, kfake with a data directory and
// no fsync, Kafka with its defaults, librdkafka's mock in memory. The echo floor answers each
// Produce with a canned response and each Fetch with a canned 1 MiB of batches.
// Env: BENCH_SERVERS, BENCH_ROUNDS (2), BENCH_PRODUCE_SECONDS (2), BENCH_PRODUCE_MAX_MIB (256),
// BENCH_PRODUCE_RECORD_BYTES (1024), BENCH_PRODUCE_BATCH_RECORDS (64), BENCH_PRODUCE_DEPTH (5),
// BENCH_KAFKA_WARMUP_SECONDS (10: Kafka's unmeasured first window), BENCH_DATA_DIR,
// BENCH_BASE_CLI (another build's dist/cli.js, run as server `base` beside `ours`, to compare a change A/B).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Writer } from '../dist/protocol/primitives.js';
import { API_CODECS } from '../dist/protocol/messages/index.js';
import { encodeRecordBatch } from '../dist/records/record-batch.js';
import { BenchClient, envInt, envList, fmt, percentile, processCpuMs, startCliServer, stopChild } from './lib.mjs';
import { startEcho } from './commit-throughput.mjs';
import { PEERS, createTopic, startPeer } from './peers.mjs';

export const TOPIC = 'bench-produce-topic';
const FETCH_PARTITION_MAX_BYTES = 1024 * 1024;

export function produceBenchOptions() {
  return {
    servers: envList('BENCH_SERVERS', ['ours', ...(process.env.BENCH_BASE_CLI ? ['base'] : []), 'echo', ...PEERS]).filter((s) => s === 'ours' || s === 'base' || s === 'echo' || PEERS.includes(s)),
    baseCli: process.env.BENCH_BASE_CLI,
    rounds: envInt('BENCH_ROUNDS', 2),
    seconds: envInt('BENCH_PRODUCE_SECONDS', 2),
    maxMiB: envInt('BENCH_PRODUCE_MAX_MIB', 256),
    recordBytes: envInt('BENCH_PRODUCE_RECORD_BYTES', 1024),
    batchRecords: envInt('BENCH_PRODUCE_BATCH_RECORDS', 64),
    depth: envInt('BENCH_PRODUCE_DEPTH', 5),
    kafkaWarmupSeconds: envInt('BENCH_KAFKA_WARMUP_SECONDS', 10),
    parentDir: process.env.BENCH_DATA_DIR || tmpdir(),
  };
}

export function batchOf({ recordBytes, batchRecords }) {
  const value = Buffer.alloc(recordBytes, 0x61);
  return encodeRecordBatch({ baseOffset: 0n, timestamp: BigInt(Date.now()), records: Array.from({ length: batchRecords }, () => ({ key: null, value })) });
}

/** A whole response frame (size, correlation id 0, header) for the echo server, as hex. */
function responseFrame(apiKey, version, body) {
  const w = new Writer(1024);
  w.int32(0);
  w.int32(0);
  w.uvarint(0); // response header v1: no tagged fields
  API_CODECS[apiKey].response.encode(w, version, body);
  const out = Buffer.from(w.finish());
  out.writeInt32BE(out.length - 4, 0);
  return out.toString('hex');
}

const produceEchoTemplate = () =>
  responseFrame(0, 9, {
    responses: [{ name: TOPIC, partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 0n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null, currentLeader: { leaderId: -1, leaderEpoch: -1 } }] }],
    throttleTimeMs: 0,
    nodeEndpoints: [],
  });

function fetchEchoTemplate(batch) {
  const records = Buffer.concat(Array.from({ length: Math.max(1, Math.floor(FETCH_PARTITION_MAX_BYTES / batch.length)) }, () => batch));
  return responseFrame(1, 12, {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: [{
      topic: TOPIC,
      partitions: [{
        partitionIndex: 0, errorCode: 0, highWatermark: 1n << 40n, lastStableOffset: 1n << 40n, logStartOffset: 0n,
        divergingEpoch: { epoch: -1, endOffset: -1n }, currentLeader: { leaderId: -1, leaderEpoch: -1 }, snapshotId: { endOffset: -1n, epoch: -1 },
        abortedTransactions: null, preferredReadReplica: -1, records,
      }],
    }],
    nodeEndpoints: [],
  });
}

async function startServer(name, options, batch) {
  if (name === 'ours' || name === 'base') {
    if (name === 'base' && !options.baseCli) throw new Error('BENCH_SERVERS names base: set BENCH_BASE_CLI to its dist/cli.js');
    const dataDir = mkdtempSync(join(options.parentDir, 'kmc-bench-produce-'));
    const s = await startCliServer(['--port', '0', '--no-admin', '--data-dir', dataDir, '--config', 'mock.flush.policy=never'], name === 'base' ? { cli: options.baseCli } : {});
    await createTopic(s.port, TOPIC, 1);
    return { ...s, cleanup: () => rmSync(dataDir, { recursive: true, force: true }) };
  }
  if (name === 'echo') {
    // Two echo servers: one answers Produce, the other Fetch (each has one canned answer).
    const produce = await startEcho(produceEchoTemplate());
    const fetch = await startEcho(fetchEchoTemplate(batch));
    return {
      ...produce,
      fetchPort: fetch.port,
      fetchChild: fetch.child,
      cleanup: async () => {
        await stopChild(fetch.child);
        fetch.cleanup?.();
        produce.cleanup?.();
      },
    };
  }
  return startPeer(name, { policy: 'never', topics: [{ name: TOPIC, partitions: 1 }], parentDir: options.parentDir });
}

/** One produce window: acknowledged batch bytes, elapsed ms, latencies, server CPU ms. */
export async function produceWindow(server, batch, { seconds, maxMiB, depth }) {
  const client = await BenchClient.connect(server.port);
  const request = { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch }] }] };
  const maxBytes = maxMiB * 1024 * 1024;
  const latencies = [];
  let bytes = 0;
  let errors = 0;
  let stop = false;
  const timer = setTimeout(() => (stop = true), seconds * 1000);
  const cpu0 = processCpuMs(server.child.pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: depth }, async () => {
      while (!stop && bytes < maxBytes) {
        const s = performance.now();
        const res = await client.send(0, 9, request);
        latencies.push(performance.now() - s);
        if (res.responses[0].partitionResponses[0].errorCode !== 0) errors++;
        else bytes += batch.length;
      }
    }),
  );
  const elapsedMs = performance.now() - t0;
  const cpu1 = processCpuMs(server.child.pid);
  clearTimeout(timer);
  client.close();
  return { bytes, elapsedMs, latencies, errors, serverCpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
}

/** The offset after the last whole batch in `records` (v2 batches: base offset, then last offset delta at byte 23). */
function nextOffsetAfter(records) {
  let at = 0;
  let next = null;
  while (records.length - at >= 61) {
    const size = 12 + records.readInt32BE(at + 8);
    if (records.length - at < size) break;
    next = records.readBigInt64BE(at) + BigInt(records.readInt32BE(at + 23)) + 1n;
    at += size;
  }
  return { next, bytes: at };
}

/** The partition's log start offset (ListOffsets v7, EARLIEST_TIMESTAMP), 0 when not answered. */
async function earliestOffset(client) {
  const res = await client.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 30000, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n }] }] });
  const p = res.topics[0]?.partitions[0];
  return p && p.errorCode === 0 && p.offset >= 0n ? p.offset : 0n;
}

/** One fetch window: record bytes returned, elapsed ms, latencies, server CPU ms. */
export async function fetchWindow(server, { seconds }) {
  const port = server.fetchPort ?? server.port;
  const pid = (server.fetchChild ?? server.child).pid;
  const client = await BenchClient.connect(port);
  const latencies = [];
  let bytes = 0;
  let errors = 0;
  let offset = 0n;
  const cpu0 = processCpuMs(pid);
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    const s = performance.now();
    const res = await client.send(1, 12, {
      clusterId: null, replicaId: -1, maxWaitMs: 500, minBytes: 1, maxBytes: 52428800, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: TOPIC, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: FETCH_PARTITION_MAX_BYTES }] }],
      forgottenTopicsData: [], rackId: '',
    });
    latencies.push(performance.now() - s);
    const p = res.responses[0]?.partitions[0];
    if (!p || p.errorCode !== 0 || !p.records) {
      // OFFSET_OUT_OF_RANGE where a server drops old data (librdkafka's mock keeps a bounded log).
      errors++;
      offset = await earliestOffset(client);
      continue;
    }
    const { next, bytes: got } = nextOffsetAfter(p.records);
    bytes += got;
    // At the end of the log (or the echo's fixed answer), start over from the beginning.
    if (server.fetchPort) continue; // the echo's one canned answer: nothing to advance
    offset = next === null || next >= p.highWatermark ? await earliestOffset(client) : next;
  }
  const elapsedMs = performance.now() - t0;
  const cpu1 = processCpuMs(pid);
  client.close();
  return { bytes, elapsedMs, latencies, errors, serverCpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0 };
}

function summarize(server, kind, windows) {
  const bytes = windows.reduce((n, w) => n + w.bytes, 0);
  const elapsedMs = windows.reduce((n, w) => n + w.elapsedMs, 0);
  const cpu = windows.some((w) => w.serverCpuMs === null) ? null : windows.reduce((n, w) => n + w.serverCpuMs, 0);
  const lat = windows.flatMap((w) => w.latencies).sort((a, b) => a - b);
  const mb = bytes / 1e6;
  return {
    server, kind, bytes, mbPerSec: mb / (elapsedMs / 1000), p50: percentile(lat, 50), p99: percentile(lat, 99), errors: windows.reduce((n, w) => n + w.errors, 0),
    /** Server CPU time (user + system) per MB moved, in ms. */
    serverCpuMsPerMB: cpu === null || mb === 0 ? null : cpu / mb,
  };
}

/** Produce, then fetch, every server in turn per round; { rows, missing, versions }. */
export async function runProduceBench(options = produceBenchOptions(), log = console.error) {
  const batch = batchOf(options);
  const rows = [];
  const missing = [];
  const versions = {};
  const servers = [];
  try {
    for (const name of options.servers) {
      const started = await startServer(name, options, batch);
      if (started.missing) {
        missing.push({ server: name, why: started.missing });
        log(`produce ${name}: missing: ${started.missing}`);
        continue;
      }
      if (started.version) versions[name] = started.version;
      servers.push({ name, ...started });
    }
    for (const [kind, window] of [['produce', (s, seconds = options.seconds) => produceWindow(s, batch, { ...options, seconds })], ['fetch', (s, seconds = options.seconds) => fetchWindow(s, { seconds })]]) {
      const windows = new Map(servers.map((s) => [s, []]));
      // Warm-up, unmeasured (and for fetch a log to read); the JVM compiles later than V8 or Go: Kafka's is longer.
      for (const s of servers) await window(s, s.name === 'kafka' ? Math.max(options.seconds, options.kafkaWarmupSeconds) : options.seconds);
      for (let round = 0; round < options.rounds; round++) for (const s of servers) windows.get(s).push(await window(s));
      for (const s of servers) {
        const row = summarize(s.name, kind, windows.get(s));
        rows.push(row);
        log(`${kind} ${s.name.padEnd(15)} ${fmt(row.mbPerSec, 1).padStart(7)} MB/s  p50 ${fmt(row.p50)} ms  p99 ${fmt(row.p99)} ms  server ${fmt(row.serverCpuMsPerMB, 2)} ms CPU/MB` + (row.errors ? `  ERRORS ${row.errors}` : ''));
      }
    }
  } finally {
    for (const s of servers) {
      await stopChild(s.child);
      await s.cleanup?.();
    }
  }
  return { rows, missing, versions, batchBytes: batch.length };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await runProduceBench();
  console.log(JSON.stringify(result, null, 2));
}
