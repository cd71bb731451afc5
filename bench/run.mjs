// Runs every benchmark (ours, the bare Node echo floor and the peers of bench/peers.mjs, as
// BENCH_SERVERS selects) and writes the results into README.md's "Benchmarks" section, between
// the `bench:results` markers (the section is appended if README has none), with the machine and
// the load average before and after. `npm run bench`
// builds first; `node bench/run.mjs --no-readme` only prints. Figures are for reading, never
// asserted by tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, envInt, fmt, machineDescription } from './lib.mjs';
import { KAFKA_VERSION, PEERS } from './peers.mjs';
import { commitBenchOptions, runCommitBench } from './commit-throughput.mjs';
import { replayBenchOptions, runReplayBench } from './replay.mjs';
import { runStartBench, startBenchOptions } from './start-time.mjs';
import { kip848BenchOptions, runKip848Bench } from './kip848-formation.mjs';
import { produceBenchOptions, runProduceBench } from './produce-throughput.mjs';
import { classicBenchOptions, runClassicBench } from './classic-formation.mjs';

const START = '<!-- bench:results:start (written by `npm run bench`; edit bench/run.mjs, not this block) -->';
const END = '<!-- bench:results:end -->';

const KNOWN_ARGS = new Set(['--no-readme']);
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: node bench/run.mjs [--no-readme]   (npm run bench builds first)

Runs every benchmark (ours, a bare Node echo server and the peers: librdkafka's mock, kfake,
Kafka 4.3.1) one after another, about 14 minutes on an idle 2-core machine, and writes the
results into README.md between the bench:results markers (--no-readme or BENCH_WRITE_README=0:
print only). The peers need what \`npm test\` provisions (.venv-ci, .kafka) plus Go and a C
compiler; a peer that cannot be built is reported as missing. BENCH_* variables size each part:
see README.md, section Benchmarks.`);
  process.exit(0);
}
const unknown = process.argv.slice(2).filter((a) => !KNOWN_ARGS.has(a));
if (unknown.length > 0) {
  console.error(`bench/run.mjs: unknown argument ${unknown.join(' ')} (--help lists them)`);
  process.exit(2);
}
const writeReadme = !process.argv.includes('--no-readme') && process.env.BENCH_WRITE_README !== '0';
const commitOptions = commitBenchOptions();
const replayOptions = replayBenchOptions();
const startOptions = startBenchOptions();
const kip848Options = kip848BenchOptions();
const produceOptions = produceBenchOptions();
const classicOptions = classicBenchOptions();
// The same classic groups once the JITs are warm: a fresh server, then this many unmeasured groups of
// as many members as measured (one group of 100 leaves V8's and the JVM's compilers far from done
// with the join path at 1,000 members); the echo floor and librdkafka's mock (which forms no
// classic group) sit it out. 0: no such table.
const classicWarmGroups = envInt('BENCH_CLASSIC_WARM_GROUPS', 3);
const classicWarmOptions = {
  ...classicOptions,
  warmups: classicWarmGroups,
  warmupMembers: 0,
  servers: classicOptions.servers.filter((s) => s !== 'echo' && s !== 'librdkafka-mock'),
};
const machine = machineDescription(process.env.BENCH_DATA_DIR || tmpdir());

const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
const loadBefore = load();
const t0 = Date.now();
console.error(`machine: ${JSON.stringify(machine)}`);
const commit = await runCommitBench(commitOptions);
const commitRows = commit.rows;
const produce = await runProduceBench(produceOptions);
const replayRows = await runReplayBench(replayOptions);
const startRows = await runStartBench(startOptions);
const kip848Rows = await runKip848Bench(kip848Options);
const classicRows = await runClassicBench(classicOptions);
const classicWarmRows = classicWarmGroups > 0 && classicWarmOptions.servers.length > 0 ? await runClassicBench(classicWarmOptions) : [];
const totalSeconds = (Date.now() - t0) / 1000;
const loadAfter = load();

const mib = (b) => `${fmt(b / 1048576, 0)} MiB`;
const ms = (v) => `${fmt(v, v < 10 ? 2 : v < 100 ? 1 : 0)}`;
const pct = (v) => (v === null ? 'n/a' : `${fmt(v, 0)} %`);
const count = (n) => n.toLocaleString('en-US');

const lines = [];
lines.push(START);
lines.push('');
lines.push(
  `Measured ${new Date().toISOString().slice(0, 10)} on: **${machine.nproc} cores** (\`nproc\`), ${machine.cpu}, ${machine.memory} RAM, ` +
    `Node ${machine.node}, Linux ${machine.kernel}; data directories on ${machine.disk} (the OS temp dir). ` +
    `Whole run: ${fmt(totalSeconds, 0)} s; load average (1/5/15 min) ${loadBefore} before, ${loadAfter} after ` +
    '(anything above 0 is other work sharing the cores and the disk, which these figures then include).',
);
lines.push('');
const peerVersions = { ...commit.versions, ...produce.versions };
for (const r of [...startRows, ...kip848Rows, ...classicRows, ...classicWarmRows]) if (r.version && r.server) peerVersions[r.server] ??= r.version;
const peersRun = commitOptions.servers.filter((s) => PEERS.includes(s));
if (peersRun.length > 0) {
  const text = (s) => {
    const why = [...commit.missing, ...produce.missing, ...startRows, ...kip848Rows, ...classicRows].find((m) => m.server === s && (m.why || m.missing));
    if (peerVersions[s]) return `${s} ${peerVersions[s]}`;
    return `${s}: missing: ${why ? why.why ?? why.missing : 'not run'}`;
  };
  lines.push(`Peers: ${peersRun.map(text).join('; ')}.`);
  lines.push('');
}
const loadText = (r) => (r.depth === 1 ? `${r.connections} x 1` : `${r.connections} x ${r.depth} pipelined`);
const us = (v) => (v === null ? 'n/a' : `${fmt(v, 1)} µs`);
// /proc counts CPU time in 10 ms ticks: a process that used less shows 0.
const cpuMsText = (v) => (v === null || v === undefined ? 'n/a' : v === 0 ? '< 10' : ms(v));
const ratio = (a, b) => (a === null || b === null || !b ? 'n/a' : `${fmt(a / b, 2)}x`);
const rowsOf = (server, policy) => commitRows.filter((r) => r.server === server && r.policy === policy);
lines.push(
  `**OffsetCommit** (v8, simple group, one partition per connection, C connections x D requests in flight on each; ` +
    `${commitOptions.rounds} rounds, each starting every server afresh (in another order each round) and warming it for ${commitOptions.serverWarmupSeconds} s (Kafka ${Math.max(commitOptions.serverWarmupSeconds, commitOptions.kafkaWarmupSeconds)} s) under the heaviest load, ` +
    `then measuring the servers in turn (ours, echo, the peers, ours, echo, ...) under each load, ${commitOptions.warmupSeconds} s warm-up and ${commitOptions.seconds} s measured, each window once all servers are quiet; ` +
    `each cell is the median of its rounds; servers in child processes, ` +
    `the bench clients in one Node process, all on the same ${machine.nproc} cores; server CPU is the server process's user + system ` +
    `time per acknowledged commit, and as % of one core):`,
);
lines.push('');
lines.push('| `mock.flush.policy` | load | commits/s | p50 latency (ms) | p99 latency (ms) | server CPU per commit | server CPU | client CPU |');
lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
for (const r of commitRows.filter((row) => row.server === 'ours')) {
  const policy = r.policy === 'interval' ? `interval (\`log.flush.interval.ms=${commitOptions.flushIntervalMs}\`)` : r.policy;
  lines.push(`| ${policy} | ${loadText(r)} | ${fmt(r.commitsPerSec, 0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${us(r.serverCpuUsPerCommit)} | ${pct(r.serverCpuPct)} | ${pct(r.clientCpuPct)} |`);
}
// kfake has no releases: its module version is a pseudo-version (v0.0.0-YYYYMMDDhhmmss-commit), shown by date.
const kfakeDate = (v) => /^v0\.0\.0-(\d{4})(\d{2})(\d{2})\d{6}-/.exec(v ?? '')?.slice(1).join('-');
const serverTitle = (name) =>
  ({
    ours: 'ours',
    base: 'base',
    echo: 'echo (floor)',
    'librdkafka-mock': `librdkafka mock ${peerVersions[name] ?? ''}`,
    kfake: kfakeDate(peerVersions[name]) ? `kfake (${kfakeDate(peerVersions[name])})` : `kfake ${peerVersions[name] ?? ''}`,
    kafka: `Kafka ${KAFKA_VERSION}`,
  })[name]?.trim() ?? name;
const missingOf = (policy) => commit.missing.filter((m) => m.policy === policy);
const missingText = (list) => list.map((m) => `**${serverTitle(m.server)}** (${m.policy}): missing: ${m.why}`).join('; ');
const neverServers = commitOptions.servers.filter((s) => rowsOf(s, 'never').length > 0 || missingOf('never').some((m) => m.server === s));
const echoRows = rowsOf('echo', 'never');
if (echoRows.length > 0 || neverServers.some((s) => PEERS.includes(s))) {
  lines.push('');
  lines.push(
    'Against the floor, a bare Node.js server answering every frame with a canned OffsetCommit response (`bench/echo-server.mjs`), and the peers ' +
      '(`bench/peers.mjs`: librdkafka\'s mock cluster from the confluent-kafka wheel, franz-go\'s kfake, Kafka itself), measured in the same rounds ' +
      'with the same clients (ours with flush `never`; kfake with a data directory and no fsync; Kafka with its defaults, no fsync on the write path; ' +
      'librdkafka\'s mock in memory). Each cell has the ratio to echo in the same run:',
  );
  lines.push('');
  lines.push(`| measure | load | ${neverServers.map(serverTitle).join(' | ')} |`);
  lines.push(`|---|---|${neverServers.map(() => '---:').join('|')}|`);
  const loads = commitOptions.loads.map((l) => l.name);
  const cell = (server, load, value, echoValue, unit) => {
    if (missingOf('never').some((m) => m.server === server)) return 'missing';
    const row = rowsOf(server, 'never').find((r) => r.load === load);
    if (!row) return 'n/a';
    const v = value(row);
    const e = echoValue;
    return `${unit(v)}${e === null || e === undefined || server === 'echo' ? '' : ` (${ratio(v, e)})`}`;
  };
  const metrics = [
    ['commits/s', (r) => r.commitsPerSec, (v) => fmt(v, 0)],
    ['server CPU per commit', (r) => r.serverCpuUsPerCommit, us],
  ];
  for (const [label, value, unit] of metrics) {
    for (const load of loads) {
      const e = echoRows.find((r) => r.load === load);
      const loadName = loadText(commitOptions.loads.find((l) => l.name === load));
      lines.push(`| ${label} | ${loadName} | ${neverServers.map((s) => cell(s, load, value, e ? value(e) : null, unit)).join(' | ')} |`);
    }
  }
  for (const load of loads) {
    const loadName = loadText(commitOptions.loads.find((l) => l.name === load));
    const lat = (s) => {
      if (missingOf('never').some((m) => m.server === s)) return 'missing';
      const r = rowsOf(s, 'never').find((x) => x.load === load);
      return r ? `${ms(r.p50)} / ${ms(r.p99)}` : 'n/a';
    };
    lines.push(`| p50 / p99 latency (ms) | ${loadName} | ${neverServers.map(lat).join(' | ')} |`);
  }
  if (missingOf('never').length > 0) {
    lines.push('');
    lines.push(`Not measured: ${missingText(missingOf('never'))}.`);
  }
}
const inMemoryOnly = (s) => s === 'librdkafka-mock';
const alwaysServers = commitOptions.servers.filter(
  (s) => s !== 'ours' && s !== 'base' && !inMemoryOnly(s) && (rowsOf(s, 'always').length > 0 || missingOf('always').some((m) => m.server === s)),
);
if (alwaysServers.length > 0 && rowsOf('ours', 'always').length > 0) {
  const notion = { kfake: 'kfake `SyncWrites`: fsync per written batch', kafka: 'Kafka `log.flush.interval.messages=1`: flush after every append' };
  lines.push('');
  lines.push(
    `Durable commits, each server in its own notion of it, in the same rounds: ours with \`mock.flush.policy=always\` (fdatasync before the answer, shared by the commits that arrived while the previous one ran), ` +
      `${alwaysServers.map((s) => notion[s] ?? serverTitle(s)).join('; ')}` +
      `${commitOptions.servers.some(inMemoryOnly) ? " (librdkafka's mock keeps everything in memory: it has no such notion)" : ''}. Commits/s, then p50 / p99 latency in ms:`,
  );
  lines.push('');
  const cols = ['ours', ...alwaysServers];
  lines.push(`| load | ${cols.map(serverTitle).join(' | ')} |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|`);
  for (const l of commitOptions.loads) {
    const c = (s) => {
      const m = missingOf('always').find((x) => x.server === s);
      if (m) return `missing: ${m.why}`;
      const r = rowsOf(s, 'always').find((x) => x.load === l.name);
      return r ? `${fmt(r.commitsPerSec, 0)}; ${ms(r.p50)} / ${ms(r.p99)}` : 'n/a';
    };
    lines.push(`| ${loadText(l)} | ${cols.map(c).join(' | ')} |`);
  }
}
const always = rowsOf('ours', 'always');
if (always.length > 0 && rowsOf('ours', 'never').length > 0) {
  lines.push('');
  const pairs = always
    .map((a) => [a, rowsOf('ours', 'never').find((n) => n.load === a.load)])
    .filter(([, n]) => n)
    .map(([a, n]) => `${loadText(a)} ${ratio(a.commitsPerSec, n.commitsPerSec)}${a.commitsPerSync == null ? '' : ` (${fmt(a.commitsPerSync, 1)} commits per fdatasync)`}`);
  lines.push(
    `Flush \`always\` (fdatasync before the answer) against \`never\`, commits/s: ${pairs.join(', ')}. ` +
      'A connection has one request in flight at a time (as Kafka mutes it until the answer is sent), so one fdatasync carries at most one commit per connection.',
  );
}
if (commit.rss.some((r) => r.policy === 'never')) {
  lines.push('');
  lines.push('Resident memory (RSS, from /proc) of each server process of the `never` rounds: right after start (and topic creation), and after all its commit loads (Node processes without `NODE_EXTRA_CA_CERTS`, whose CA bundle would add ~1.6 MiB):');
  lines.push('');
  lines.push('| server | idle | after the commit loads |');
  lines.push('|---|---:|---:|');
  for (const r of commit.rss.filter((x) => x.policy === 'never')) lines.push(`| ${serverTitle(r.server)} | ${r.idleBytes === null ? 'n/a' : mib(r.idleBytes)} | ${r.afterBytes === null ? 'n/a' : mib(r.afterBytes)} |`);
}
if (produce.rows.length > 0 || produce.missing.length > 0) {
  const cols = produceOptions.servers;
  const pr = (server, kind) => produce.rows.find((r) => r.server === server && r.kind === kind);
  const gone = (server) => produce.missing.find((m) => m.server === server);
  lines.push('');
  lines.push(
    `**Produce and fetch** (one client, one partition; Produce v9 acks=-1, one uncompressed batch of ${produceOptions.batchRecords} records of ${produceOptions.recordBytes} bytes ` +
      `(${fmt(produce.batchBytes / 1024, 0)} KiB) per request, ${produceOptions.depth} requests in flight, each window ${produceOptions.seconds} s or ${produceOptions.maxMiB} MiB; ` +
      `then Fetch v12 reading the partition back, one request in flight, 1 MiB per partition; MB = 10^6 bytes of record batches; ${produceOptions.rounds} rounds after one unmeasured, ` +
      'the servers in turn; ours with flush `never`, kfake with a data directory and no fsync, Kafka with its defaults, librdkafka\'s mock in memory ' +
      '(it keeps a bounded log and answers a Fetch with one batch); echo answers every Produce with a canned response and every Fetch with a canned 1 MiB). Ratios to echo:',
  );
  lines.push('');
  lines.push(`| measure | ${cols.map(serverTitle).join(' | ')} |`);
  lines.push(`|---|${cols.map(() => '---:').join('|')}|`);
  for (const kind of ['produce', 'fetch']) {
    const e = pr('echo', kind);
    const cells = (f) => cols.map((c) => (gone(c) ? `missing: ${gone(c).why}` : pr(c, kind) ? f(pr(c, kind), c) : 'n/a')).join(' | ');
    lines.push(`| ${kind} MB/s | ${cells((r, c) => `${fmt(r.mbPerSec, 1)}${e && c !== 'echo' ? ` (${ratio(r.mbPerSec, e.mbPerSec)})` : ''}`)} |`);
    lines.push(`| ${kind} p50 / p99 latency (ms) | ${cells((r) => `${ms(r.p50)} / ${ms(r.p99)}`)} |`);
    // /proc's 10 ms ticks: a server that used less in all its windows shows 0, an upper bound then.
    const perMB = (r) => (r.serverCpuMsPerMB === null ? 'n/a' : r.serverCpuMsPerMB === 0 ? `< ${fmt(10 / (r.bytes / 1e6), 3)}` : fmt(r.serverCpuMsPerMB, 2));
    lines.push(`| ${kind} server CPU per MB (ms) | ${cells(perMB)} |`);
  }
}
lines.push('');
lines.push(
  `**Replay** (\`startServer\` -> ready on an existing data directory, fresh process each, the median of ${replayOptions.starts} starts; offset records over ` +
    `${count(replayOptions.groups)} groups x ${replayOptions.partitions} partitions, one RecordBatch of ${replayOptions.partitions} records per append, ` +
    `\`offsets.topic.segment.bytes=${replayOptions.segmentBytes}\`; peak RSS is the process's \`maxRSS\`, Node itself included):`,
);
lines.push('');
lines.push('| offset records | distinct keys | log on disk | startServer -> ready | peak RSS | heapUsed at ready | after compaction |');
lines.push('|---:|---:|---:|---:|---:|---:|---|');
for (const r of replayRows) {
  const logText = r.records === 0 ? 'empty' : `${mib(r.log.bytes)}, ${r.log.segments} segments`;
  let after = r.records === 0 ? '' : r.afterNote;
  if (r.after) {
    const c = r.compaction;
    const kept = c && c.partitionsCleaned > 0 ? `closed segments ${count(c.recordsBefore)} -> ${count(c.recordsAfter)} records` : 'no closed segment to clean';
    after = `${ms(r.after.startServerMs)} ms, peak RSS ${mib(r.after.peakRssBytes)}; ${mib(r.afterStats.bytes)}, ${r.afterStats.segments} segments (${kept}; \`compact()\` took ${ms(r.compactMs)} ms)`;
  }
  lines.push(
    `| ${r.records === 0 ? '0 (baseline)' : count(r.records)} | ${count(r.keys)} | ${logText} | ${ms(r.before.startServerMs)} ms (of ${r.before.startsMs.map((v) => fmt(v, 0)).join(', ')}) | ${mib(r.before.peakRssBytes)} | ${mib(r.before.heapUsedBytes)} | ${after} |`,
  );
}
lines.push('');
lines.push(
  `**Start** (medians of ${startOptions.runs} runs${startOptions.peers.includes('kafka') ? `, Kafka ${startOptions.kafkaRuns}` : ''}, the servers taking turns; process CPU time beside the wall time, which the load average inflates; ` +
    'peers from spawn to their first ApiVersions answer as ours, Kafka from `kafka.Kafka` spawned on storage formatted beforehand; ' +
    'every Node process without `NODE_EXTRA_CA_CERTS`, which makes Node load a CA bundle at each start while the server makes no outbound TLS, ' +
    'and "Node itself" is the floor: `node -e 0` from spawn to exit):',
);
lines.push('');
lines.push('| measure | wall (ms) | CPU (ms) |');
lines.push('|---|---:|---:|');
for (const r of startRows) {
  const label = r.server && r.server !== 'ours' ? r.label.replace(r.server, serverTitle(r.server)) : r.label;
  lines.push(r.missing ? `| ${label} | missing: ${r.missing} | |` : `| ${label} | ${ms(r.ms)} | ${cpuMsText(r.cpuMs)} |`);
}
lines.push('');
lines.push(
  `**KIP-848 group formation** (raw ConsumerGroupHeartbeat v1 members as Kafka's Java consumer heartbeats; one topic of ${kip848Options.partitions} partitions (one per member when they are more), ` +
    `\`group.consumer.heartbeat.interval.ms=${kip848Options.heartbeatIntervalMs}\`, \`group.consumer.assignment.interval.ms=${kip848Options.assignmentIntervalMs}\` (ours and Kafka; kfake and librdkafka's mock take the heartbeat interval only); ` +
    `until all members are at the same epoch and own every partition once, as the members see it, joining once the coordinator assigns the new topic; a fresh server per group after ${kip848Options.warmups} unmeasured warm-up group(s) of ${kip848Options.warmupMembers}):`,
);
/** A group-formation table: the `counts` columns (title, value of a row) between the time and the server CPU. */
const formationTable = (rows, counts) => {
  const blank = counts.map(() => ' |').join('');
  lines.push('');
  lines.push(`| server | members | until stable (ms) | ${counts.map(([title]) => title).join(' | ')} | server CPU (ms) |`);
  lines.push(`|---|---:|---:|${counts.map(() => '---:|').join('')}---:|`);
  for (const r of rows) {
    if (r.missing) lines.push(`| ${serverTitle(r.server)} | | missing: ${r.missing} |${blank} |`);
    else if (r.failed) lines.push(`| ${serverTitle(r.server)} | ${r.members} | failed: ${r.failed} |${blank} |`);
    else if (r.skipped) lines.push(`| ${serverTitle(r.server)} | ${r.members} | ${r.skipped} |${blank} |`);
    else lines.push(`| ${serverTitle(r.server)} | ${r.members} | ${ms(r.ms)} | ${counts.map(([, value]) => value(r) ?? '').join(' | ')} | ${cpuMsText(r.serverCpuMs)} |`);
  }
};
formationTable(kip848Rows, [
  ['heartbeats per member', (r) => fmt(r.heartbeatsPerMember, 1)],
  ['most by one member', (r) => r.maxHeartbeats],
  ['group epoch', (r) => r.groupEpoch],
]);
lines.push('');
lines.push(
  `**Classic group formation** (raw JoinGroup v5 / SyncGroup v3 / Heartbeat v3 members as Kafka's Java consumer with the classic protocol; one topic of ${classicOptions.partitions} partitions (one per member when they are more), ` +
    `the leader assigning them round-robin; heartbeats every ${classicOptions.heartbeatIntervalMs} ms; \`group.initial.rebalance.delay.ms=0\` (kfake has none); ` +
    `until all members are synced at the same generation and own every partition once; a fresh server per group after ${classicOptions.warmups} unmeasured warm-up group(s) of ${classicOptions.warmupMembers}; ${classicOptions.timeoutMs / 1000} s at most). ` +
    '**echo (floor)** is what a bare Node.js server needs for the fewest requests any server got by with (kfake\'s: MEMBER_ID_REQUIRED, join, sync): ' +
    'as many connections opened at once from the same client process, each sending three requests in turn, answered with a canned frame (`bench/formation.mjs` `echoFloor`):',
);
const classicCounts = [
  ['requests per member', (r) => fmt(r.requestsPerMember, 1)],
  ['most by one member', (r) => r.maxRequests],
  ['generation', (r) => r.generation],
];
formationTable(classicRows, classicCounts);
if (classicWarmRows.length > 0) {
  lines.push('');
  lines.push(
    `The same, warm: a fresh server per group after ${classicWarmGroups} unmeasured groups of as many members as measured, so that the ` +
      'JIT compilers (V8\'s for ours, the JVM\'s for Kafka) have compiled the join path as a long-running broker has; kfake, compiled ahead of time, has nothing to warm:',
  );
  formationTable(classicWarmRows, classicCounts);
}
lines.push('');
lines.push(END);
const block = lines.join('\n');
console.log(block);

if (writeReadme) {
  const file = join(ROOT, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const s = readme.indexOf(START.slice(0, 26));
  const e = readme.indexOf(END);
  let next;
  if (s >= 0 && e > s) next = readme.slice(0, s) + block + readme.slice(e + END.length);
  else next = `${readme.replace(/\s*$/, '')}\n\n## Benchmarks\n\nRun \`npm run bench\`.\n\n${block}\n`;
  writeFileSync(file, next);
  console.error('README.md: Benchmarks results updated');
}
