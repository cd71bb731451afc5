// Runs every benchmark and writes the results into README.md's "Benchmarks" section, between
// the `bench:results` markers (the section is appended if README has none). `npm run bench`
// builds first; `node bench/run.mjs --no-readme` only prints. Figures are for reading, never
// asserted by tests.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, fmt, machineDescription } from './lib.mjs';
import { commitBenchOptions, runCommitBench } from './commit-throughput.mjs';
import { replayBenchOptions, runReplayBench } from './replay.mjs';
import { runStartBench, startBenchOptions } from './start-time.mjs';
import { kip848BenchOptions, runKip848Bench } from './kip848-formation.mjs';

const START = '<!-- bench:results:start (written by `npm run bench`; edit bench/run.mjs, not this block) -->';
const END = '<!-- bench:results:end -->';

const writeReadme = !process.argv.includes('--no-readme') && process.env.BENCH_WRITE_README !== '0';
const commitOptions = commitBenchOptions();
const replayOptions = replayBenchOptions();
const startOptions = startBenchOptions();
const kip848Options = kip848BenchOptions();
const machine = machineDescription(process.env.BENCH_DATA_DIR || tmpdir());

const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
const loadBefore = load();
const t0 = Date.now();
console.error(`machine: ${JSON.stringify(machine)}`);
const commitRows = await runCommitBench(commitOptions);
const replayRows = await runReplayBench(replayOptions);
const startRows = await runStartBench(startOptions);
const kip848Rows = await runKip848Bench(kip848Options);
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
const loadText = (r) => (r.depth === 1 ? `${r.connections} x 1` : `${r.connections} x ${r.depth} pipelined`);
const us = (v) => (v === null ? 'n/a' : `${fmt(v, 1)} µs`);
const ratio = (a, b) => (a === null || b === null || !b ? 'n/a' : `${fmt(a / b, 2)}x`);
const rowsOf = (server, policy) => commitRows.filter((r) => r.server === server && r.policy === policy);
lines.push(
  `**OffsetCommit** (v8, simple group, one partition per connection, C connections x D requests in flight on each; ` +
    `${commitOptions.warmupSeconds} s warm-up then ${commitOptions.seconds} s measured per round, ${commitOptions.rounds} rounds per load, ` +
    `the servers measured in turn (ours, echo, ours, echo, ...) and each row summing its rounds; servers in child processes, ` +
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
const echoRows = rowsOf('echo', 'never');
if (echoRows.length > 0) {
  lines.push('');
  lines.push(
    'Against the floor, a bare Node.js server answering every frame with a canned OffsetCommit response (`bench/echo-server.mjs`), ' +
      'measured in the same rounds (flush `never`; the same clients):',
  );
  lines.push('');
  lines.push('| load | ours commits/s | echo commits/s | ours / echo | ours CPU per commit | echo CPU per commit | ours / echo |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|');
  for (const e of echoRows) {
    const o = rowsOf('ours', 'never').find((r) => r.load === e.load);
    if (!o) continue;
    lines.push(
      `| ${loadText(e)} | ${fmt(o.commitsPerSec, 0)} | ${fmt(e.commitsPerSec, 0)} | ${ratio(o.commitsPerSec, e.commitsPerSec)} | ` +
        `${us(o.serverCpuUsPerCommit)} | ${us(e.serverCpuUsPerCommit)} | ${ratio(o.serverCpuUsPerCommit, e.serverCpuUsPerCommit)} |`,
    );
  }
}
const always = rowsOf('ours', 'always');
if (always.length > 0 && rowsOf('ours', 'never').length > 0) {
  lines.push('');
  const pairs = always
    .map((a) => [a, rowsOf('ours', 'never').find((n) => n.load === a.load)])
    .filter(([, n]) => n)
    .map(([a, n]) => `${loadText(a)} ${ratio(a.commitsPerSec, n.commitsPerSec)}`);
  lines.push(`Flush \`always\` (one fdatasync per write) against \`never\`, commits/s: ${pairs.join(', ')}.`);
}
lines.push('');
lines.push(
  `**Replay** (\`startServer\` -> ready on an existing data directory, fresh process each; offset records over ` +
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
    `| ${r.records === 0 ? '0 (baseline)' : count(r.records)} | ${count(r.keys)} | ${logText} | ${ms(r.before.startServerMs)} ms | ${mib(r.before.peakRssBytes)} | ${mib(r.before.heapUsedBytes)} | ${after} |`,
  );
}
lines.push('');
lines.push(`**Start** (medians of ${startOptions.runs} runs; process CPU time beside the wall time, which the load average inflates):`);
lines.push('');
lines.push('| measure | wall (ms) | CPU (ms) |');
lines.push('|---|---:|---:|');
for (const r of startRows) lines.push(`| ${r.label} | ${ms(r.ms)} | ${ms(r.cpuMs)} |`);
lines.push('');
lines.push(
  `**KIP-848 group formation** (raw ConsumerGroupHeartbeat v1 members as Kafka's Java consumer heartbeats; one topic of ${kip848Options.partitions} partitions, ` +
    `\`group.consumer.heartbeat.interval.ms=${kip848Options.heartbeatIntervalMs}\`, \`group.consumer.assignment.interval.ms=${kip848Options.assignmentIntervalMs}\`; until every member owns its target at the group epoch):`,
);
lines.push('');
lines.push('| members | until stable (ms) | heartbeats per member | most by one member | group epoch | server CPU (ms) |');
lines.push('|---:|---:|---:|---:|---:|---:|');
for (const r of kip848Rows) lines.push(`| ${r.members} | ${ms(r.ms)} | ${fmt(r.heartbeatsPerMember, 1)} | ${r.maxHeartbeats} | ${r.groupEpoch} | ${ms(r.serverCpuMs)} |`);
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
