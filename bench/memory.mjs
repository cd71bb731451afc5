// Server memory (RSS) under three loads of issue #16, each against a fresh `node dist/cli.js`
// (run `npm run build` first) in its own data directory, measured from /proc/<pid>/status:
// VmRSS idle, under the load, and once the load is gone (after a pause for the collector),
// and VmHWM (the peak).
// - BENCH_MEM_CONNECTIONS (10000) idle connections, each having sent one ApiVersions;
// - BENCH_MEM_FRAMES (10) frames of BENCH_MEM_FRAME_BYTES (100 MiB less 4 KiB: socket.request.max.bytes
//   is 100 MiB) sent all but their last byte, so the server holds them in flight;
// - BENCH_MEM_GROUPS (100000) distinct groups, each committing one offset (16 connections, flush `never`);
// - BENCH_MEM_COMMIT_SECONDS (20) s of OffsetCommits to one group's 64 partitions, 16 connections x 4
//   in flight (flush `never`): a burst like bench/commit-throughput.mjs's, every commit one batch
//   appended to `__consumer_offsets`.
// After the load, RSS is read again 3 s and BENCH_MEM_IDLE_SECONDS (30) s later: V8 gives its grown heap
// back when its memory reducer runs, some seconds after the allocations stop.
// BENCH_MEM_LOADS (connections,frames,groups,commits) picks the loads; BENCH_MEM_CLI another build's
// dist/cli.js to measure instead (e.g. main's, for a before/after).
// Figures are for reading, never asserted; the machine's load changes them.
//   node bench/memory.mjs            (prints one JSON line per load and a Markdown table)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { once } from 'node:events';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { BenchClient, CLI, envInt, envList, startCliServer, stopChild } from './lib.mjs';

const CONNECTIONS = envInt('BENCH_MEM_CONNECTIONS', 10_000);
const FRAMES = envInt('BENCH_MEM_FRAMES', 10);
const FRAME_BYTES = envInt('BENCH_MEM_FRAME_BYTES', 100 * 1024 * 1024 - 4096);
const GROUPS = envInt('BENCH_MEM_GROUPS', 100_000);
const COMMIT_SECONDS = envInt('BENCH_MEM_COMMIT_SECONDS', 20);
const IDLE_SECONDS = envInt('BENCH_MEM_IDLE_SECONDS', 30);
const LOADS = envList('BENCH_MEM_LOADS', ['connections', 'frames', 'groups', 'commits']);
const SERVER_CLI = process.env.BENCH_MEM_CLI || CLI;

/** VmRSS and VmHWM of a process in MiB. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)[1]);
  return { rss: Math.round(kib('VmRSS') / 1024), peak: Math.round(kib('VmHWM') / 1024) };
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function withServer(args, fn) {
  const dir = mkdtempSync(join(tmpdir(), 'kmc-bench-mem-'));
  const { child, port } = await startCliServer(['--port', '0', '--data-dir', dir, '--no-admin', ...args], { cli: SERVER_CLI });
  try {
    await pause(500);
    const idle = memory(child.pid).rss;
    const loaded = await fn(port);
    const under = memory(child.pid);
    await loaded.release();
    await pause(3000);
    const after = memory(child.pid).rss;
    await pause(Math.max(0, IDLE_SECONDS - 3) * 1000);
    return { idleMiB: idle, underLoadMiB: under.rss, peakMiB: memory(child.pid).peak, afterMiB: after, afterIdleMiB: memory(child.pid).rss, ...loaded.figures };
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function idleConnections(port) {
  const clients = [];
  for (let i = 0; i < CONNECTIONS; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, CONNECTIONS - i) }, () => BenchClient.connect(port)));
    await Promise.all(batch.map((c) => c.send(18, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' })));
    clients.push(...batch);
  }
  await pause(500);
  return { release: async () => clients.forEach((c) => c.close()) };
}

async function framesInFlight(port) {
  // One ApiVersions v3 frame whose client software name pads it to FRAME_BYTES; each socket gets all but its last byte.
  const frame = Buffer.alloc(FRAME_BYTES, 0x61);
  frame.writeInt32BE(FRAME_BYTES - 4, 0);
  frame.writeInt16BE(18, 4);
  frame.writeInt16BE(3, 6);
  const sockets = [];
  for (let i = 0; i < FRAMES; i++) {
    const s = connect({ port, host: '127.0.0.1' });
    await once(s, 'connect');
    s.on('error', () => {});
    if (!s.write(frame.subarray(0, FRAME_BYTES - 1))) await once(s, 'drain');
    sockets.push(s);
  }
  await pause(2000);
  return { release: async () => sockets.forEach((s) => s.destroy()) };
}

async function distinctGroups(port) {
  const clients = await Promise.all(Array.from({ length: 16 }, () => BenchClient.connect(port)));
  const commit = (groupId) => ({ groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 'bench-mem', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
  await clients[0].send(19, 7, { topics: [{ name: 'bench-mem', numPartitions: 1, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
  let next = 0;
  await Promise.all(clients.map(async (c) => {
    while (next < GROUPS) {
      const res = await c.send(8, 8, commit(`bench-group-${next++}`));
      if (res.topics[0].partitions[0].errorCode !== 0) throw new Error(`commit failed: ${res.topics[0].partitions[0].errorCode}`);
    }
  }));
  await pause(500);
  return { release: async () => clients.forEach((c) => c.close()) };
}

async function commitBurst(port) {
  const partitions = 64;
  const admin = await BenchClient.connect(port);
  await admin.send(19, 7, { topics: [{ name: 'bench-mem-commits', numPartitions: partitions, replicationFactor: -1, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
  admin.close();
  const clients = await Promise.all(Array.from({ length: 16 }, () => BenchClient.connect(port)));
  const nextOffset = new Array(partitions).fill(0n);
  const until = Date.now() + COMMIT_SECONDS * 1000;
  let commits = 0;
  const loop = async (client, partition) => {
    while (Date.now() < until) {
      const res = await client.send(8, 8, {
        groupId: 'bench-mem-burst',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [{ name: 'bench-mem-commits', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partitionIndex: partition, committedOffset: nextOffset[partition]++, committedLeaderEpoch: -1, committedMetadata: '' }] }],
      });
      if (res.topics[0].partitions[0].errorCode !== 0) throw new Error(`commit failed: ${res.topics[0].partitions[0].errorCode}`);
      commits++;
    }
  };
  await Promise.all(clients.flatMap((c, i) => [0, 1, 2, 3].map((d) => loop(c, (i * 4 + d) % partitions))));
  return { release: async () => clients.forEach((c) => c.close()), figures: { commits } };
}

const rows = [];
const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
for (const [key, name, args, fn] of [
  ['connections', `${CONNECTIONS.toLocaleString('en-US')} idle connections`, [], idleConnections],
  ['frames', `${FRAMES} frames of ${(FRAME_BYTES / 2 ** 20).toFixed(0)} MiB in flight`, [], framesInFlight],
  ['groups', `${GROUPS.toLocaleString('en-US')} distinct groups (one offset each)`, ['--config', 'mock.flush.policy=never'], distinctGroups],
  ['commits', `${COMMIT_SECONDS} s of OffsetCommits, 16 connections x 4 in flight`, ['--config', 'mock.flush.policy=never'], commitBurst],
].filter(([key]) => LOADS.includes(key))) {
  const loadBefore = load();
  const r = await withServer(args, fn);
  const row = { load: name, ...r, loadAverage: `${loadBefore} → ${load()}` };
  console.log(JSON.stringify(row));
  rows.push(row);
}
console.log(`\n| load | idle RSS | under load | peak | 3 s after | ${IDLE_SECONDS} s after | load average |\n|---|---|---|---|---|---|---|`);
for (const r of rows) {
  const load = r.commits === undefined ? r.load : `${r.load} (${r.commits.toLocaleString('en-US')} commits)`;
  console.log(`| ${load} | ${r.idleMiB} MiB | ${r.underLoadMiB} MiB | ${r.peakMiB} MiB | ${r.afterMiB} MiB | ${r.afterIdleMiB} MiB | ${r.loadAverage} |`);
}
