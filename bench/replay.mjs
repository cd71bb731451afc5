// Replay (recovery) time and peak memory of a `__consumer_offsets` log of N offset records.
//
// The log is written with GroupLog.append (from dist/, run `npm run build` first) in batches of
// one group x BENCH_REPLAY_PARTITIONS partitions (one RecordBatch per append, as a commit of
// that many partitions writes it), cycling over BENCH_REPLAY_GROUPS groups, so N records
// cover min(N, groups x partitions) keys; with the defaults (1,000 groups x 100 partitions)
// 100,000 records write every key once and 1,000,000 records write every key 10 times.
//
// Each measurement is a fresh child process (`node bench/replay.mjs --child <dir>`) that calls
// startServer({ port: 0, dataDir }) and reports the time to ready, its peak RSS
// (process.resourceUsage().maxRSS, the kernel's high-water mark, which covers the synchronous
// replay no sampler could observe) and heapUsed once ready. An empty data directory gives the
// baseline.
//
// After compaction: if GroupLog has a compact() method (the log cleaner), the log is opened,
// compacted, closed, and measured again; otherwise that column says why it is missing.
//
// Env: BENCH_REPLAY_RECORDS (100000,1000000), BENCH_REPLAY_GROUPS (1000),
// BENCH_REPLAY_PARTITIONS (100), BENCH_SEGMENT_BYTES (262144: smaller than Kafka allows, so
// that a 1,000,000-record log, ~1.9 MB per __consumer_offsets partition, has closed segments
// for the cleaner; the active segment is never cleaned),
// BENCH_REPLAY_STARTS (3: each figure is the median of this many fresh starts),
// BENCH_DATA_DIR (parent for the temporary data directories; default the OS temp dir).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { benchNodeEnv, envInt, envList, fmt, spawnChild } from './lib.mjs';

const TOPIC = 'bench-replay-topic';
const TOPIC_ID = 'S2Fma2FNb2NrQmVuY2gxMg'; // a fixed base64url Kafka UUID (written as the tagged TopicId)

export function replayBenchOptions() {
  return {
    sizes: envList('BENCH_REPLAY_RECORDS', ['100000', '1000000']).map(Number),
    groups: envInt('BENCH_REPLAY_GROUPS', 1000),
    partitions: envInt('BENCH_REPLAY_PARTITIONS', 100),
    segmentBytes: envInt('BENCH_SEGMENT_BYTES', 262144),
    starts: envInt('BENCH_REPLAY_STARTS', 3),
    parentDir: process.env.BENCH_DATA_DIR || tmpdir(),
  };
}

const brokerConfig = (dataDir, segmentBytes) => ({
  'log.dirs': dataDir,
  'offsets.topic.segment.bytes': String(segmentBytes),
});

async function openGroupLog(dataDir, segmentBytes, extra = {}) {
  const [{ GroupLog }, { BrokerConfig }, { systemTime }, { default: pino }] = await Promise.all([
    import('../dist/coordinator/group-log.js'),
    import('../dist/config.js'),
    import('../dist/util/time.js'),
    import('pino'),
  ]);
  const config = new BrokerConfig({ ...brokerConfig(dataDir, segmentBytes), ...extra });
  return { GroupLog, log: GroupLog.open({ dataDir, config, log: pino({ level: 'silent' }), time: systemTime }) };
}

/** Writes `records` offset commits into a fresh log in `dataDir`; returns the time taken (ms). */
export async function writeOffsetsLog(dataDir, records, { groups, partitions, segmentBytes }) {
  const t0 = performance.now();
  // 'never': the writer is not what is measured; close() writes and syncs everything.
  const { log } = await openGroupLog(dataDir, segmentBytes, { 'mock.flush.policy': 'never' });
  const now = BigInt(Date.now());
  let written = 0;
  let appends = 0;
  let round = 0;
  while (written < records) {
    for (let g = 0; g < groups && written < records; g++) {
      const count = Math.min(partitions, records - written);
      const batch = new Array(count);
      for (let p = 0; p < count; p++) {
        batch[p] = {
          kind: 'offset-commit',
          groupId: `bench-group-${g}`,
          topic: TOPIC,
          partition: p,
          value: { offset: BigInt(round * 1000 + p), leaderEpoch: 0, metadata: '', commitTimestamp: now, expireTimestamp: -1n, topicId: TOPIC_ID },
        };
      }
      void log.append(batch);
      written += count;
      // let the turn's writes go out now and then, so queued bytes stay bounded
      if (++appends % 200 === 0) await new Promise((r) => setImmediate(r));
    }
    round++;
  }
  await log.close();
  return performance.now() - t0;
}

function logStats(dataDir) {
  let bytes = 0;
  let segments = 0;
  for (const d of readdirSync(dataDir)) {
    if (!d.startsWith('__consumer_offsets-')) continue;
    for (const f of readdirSync(join(dataDir, d))) {
      if (!f.endsWith('.log')) continue;
      segments++;
      bytes += statSync(join(dataDir, d, f)).size;
    }
  }
  return { bytes, segments };
}

/** Starts a server on `dataDir` in a fresh child process; resolves with its report. */
export function measureStart(dataDir, segmentBytes) {
  return new Promise((resolve, reject) => {
    const child = spawnChild(process.execPath, [new URL(import.meta.url).pathname, '--child', dataDir, String(segmentBytes)], { stdio: ['ignore', 'pipe', 'inherit'], env: benchNodeEnv() });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`replay child exited with ${code}: ${out}`));
      try {
        resolve(JSON.parse(out.trim().split('\n').pop()));
      } catch (err) {
        reject(new Error(`bad child output: ${out}`, { cause: err }));
      }
    });
  });
}

/**
 * `starts` fresh starts on `dataDir` (measureStart); the one with the median startServer time, with
 * every start's time in `startsMs`: one start of a log that another process just wrote varies with
 * what the machine does meanwhile (page cache, the other core) by up to 2x on a small VM.
 */
export async function measureStarts(dataDir, segmentBytes, starts) {
  const runs = [];
  for (let i = 0; i < Math.max(1, starts); i++) runs.push(await measureStart(dataDir, segmentBytes));
  const sorted = [...runs].sort((a, b) => a.startServerMs - b.startServerMs);
  return { ...sorted[(sorted.length - 1) >> 1], startsMs: runs.map((r) => r.startServerMs) };
}

async function child(dataDir, segmentBytes) {
  const { startServer } = await import('../dist/index.js');
  const t0 = performance.now();
  const server = await startServer({ host: '127.0.0.1', port: 0, dataDir, config: brokerConfig(dataDir, segmentBytes), logLevel: 'warn' });
  const t1 = performance.now();
  const mem = process.memoryUsage();
  const peakRss = process.resourceUsage().maxRSS * 1024;
  let groups = 0;
  let offsets = 0;
  for (const g of server.broker.offsets.groupIds()) {
    groups++;
    offsets += server.broker.offsets.offsetsOf(g).length;
  }
  await server.close();
  process.stdout.write(
    JSON.stringify({ startServerMs: t1 - t0, processReadyMs: t1, peakRssBytes: peakRss, rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, groups, offsets }) + '\n',
  );
}

const mib = (b) => `${fmt(b / 1048576, 0)} MiB`;

/** One row per log size, plus the empty-directory baseline. */
export async function runReplayBench(options = replayBenchOptions(), log = console.error) {
  const rows = [];
  const emptyDir = mkdtempSync(join(options.parentDir, 'kmc-bench-replay-empty-'));
  try {
    const base = await measureStarts(emptyDir, options.segmentBytes, options.starts);
    rows.push({ records: 0, keys: 0, writeMs: 0, log: { bytes: 0, segments: 0 }, before: base, after: null, afterNote: '' });
    log(`replay empty data dir: startServer ${fmt(base.startServerMs)} ms, peak RSS ${mib(base.peakRssBytes)}`);
  } finally {
    rmSync(emptyDir, { recursive: true, force: true });
  }
  for (const records of options.sizes) {
    const dataDir = mkdtempSync(join(options.parentDir, `kmc-bench-replay-${records}-`));
    try {
      const writeMs = await writeOffsetsLog(dataDir, records, options);
      const stats = logStats(dataDir);
      const before = await measureStarts(dataDir, options.segmentBytes, options.starts);
      const keys = Math.min(records, options.groups * options.partitions);
      if (before.offsets !== keys) throw new Error(`replay of ${records} records restored ${before.offsets} offsets, expected ${keys}`);
      log(
        `replay ${records} records (${keys} keys, ${mib(stats.bytes)} in ${stats.segments} segments, written in ${fmt(writeMs, 0)} ms): ` +
          `startServer ${fmt(before.startServerMs)} ms (median of ${before.startsMs.map((v) => fmt(v, 0)).join(', ')}), peak RSS ${mib(before.peakRssBytes)}, heapUsed at ready ${mib(before.heapUsedBytes)}`,
      );
      let after = null;
      let afterNote = '';
      let afterStats = null;
      let compactMs = null;
      let compaction = null;
      const { GroupLog, log: groupLog } = await openGroupLog(dataDir, options.segmentBytes);
      if (typeof GroupLog.prototype.compact === 'function') {
        const t0 = performance.now();
        compaction = await groupLog.compact();
        compactMs = performance.now() - t0;
        await groupLog.close();
        afterStats = logStats(dataDir);
        after = await measureStarts(dataDir, options.segmentBytes, options.starts);
        if (after.offsets !== keys) throw new Error(`replay after compaction restored ${after.offsets} offsets, expected ${keys}`);
        log(
          `  after compaction (${fmt(compactMs, 0)} ms, ${JSON.stringify(compaction)}; ${mib(afterStats.bytes)} in ${afterStats.segments} segments): ` +
            `startServer ${fmt(after.startServerMs)} ms (median of ${after.startsMs.map((v) => fmt(v, 0)).join(', ')}), peak RSS ${mib(after.peakRssBytes)}`,
        );
      } else {
        await groupLog.close();
        afterNote = 'GroupLog.compact() not available in this build';
        log(`  after compaction: ${afterNote}`);
      }
      rows.push({ records, keys, writeMs, log: stats, before, after, afterStats, compactMs, compaction, afterNote });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return rows;
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], Number(process.argv[4]));
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runReplayBench();
  console.log(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? String(v) : v), 2));
}
