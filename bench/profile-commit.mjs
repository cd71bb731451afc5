// A CPU profile of the OffsetCommit path: starts our server with `node --cpu-prof`, drives one
// load (BENCH_LOADS' first entry, default 16x1) with flush policy BENCH_POLICIES' first entry
// (default never) for BENCH_COMMIT_SECONDS, stops it, and prints the functions with the most self
// time and the files with the most inclusive time. The .cpuprofile stays in .tmp/profiles/ for
// Chrome DevTools. `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { BenchClient, CLI, ROOT, envInt, envList, stopChild } from './lib.mjs';

const [loadText] = envList('BENCH_LOADS', ['16x1']);
const [policy] = envList('BENCH_POLICIES', ['never']);
const seconds = envInt('BENCH_COMMIT_SECONDS', 5);
const [connections, depth] = loadText.split('x').map(Number);
const profileDir = join(ROOT, '.tmp', 'profiles', `commit-${policy}-${loadText}-${Date.now()}`);
mkdirSync(profileDir, { recursive: true });
const dataDir = mkdtempSync(join(tmpdir(), 'kmc-profile-'));

const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', profileDir, CLI, '--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--config', `mock.flush.policy=${policy}`], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let port;
for await (const line of createInterface({ input: child.stdout })) {
  const m = /ready on [^"\s]+:(\d+)/.exec(line);
  if (m) {
    port = Number(m[1]);
    break;
  }
}
const admin = await BenchClient.connect(port);
await admin.send(19, 5, { topics: [{ name: 't', numPartitions: connections, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
admin.close();
const clients = await Promise.all(Array.from({ length: connections }, () => BenchClient.connect(port)));
let done = false;
let commits = 0;
const loops = [];
clients.forEach((c, p) => {
  let offset = 0n;
  for (let d = 0; d < depth; d++) {
    loops.push((async () => {
      while (!done) {
        await c.send(8, 8, { groupId: 'g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: 't', partitions: [{ partitionIndex: p, committedOffset: ++offset, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        commits++;
      }
    })());
  }
});
await new Promise((r) => setTimeout(r, seconds * 1000));
done = true;
await Promise.all(loops);
for (const c of clients) c.close();
await stopChild(child);
rmSync(dataDir, { recursive: true, force: true });

const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = new Map();
// Only the samples from 1 s after the first commit was handled: start-up and JIT warm-up left out.
const parentOf = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const handlesCommit = new Set();
for (const n of profile.nodes) {
  for (let x = n.id; x !== undefined; x = parentOf.get(x)) {
    if (byId.get(x).callFrame.functionName === 'commitOffsets') {
      handlesCommit.add(n.id);
      break;
    }
  }
}
let clock = 0;
let from = Infinity;
profile.samples.forEach((id, i) => {
  clock += profile.timeDeltas[i] ?? 0;
  if (from === Infinity && handlesCommit.has(id)) from = clock + 1_000_000;
  if (clock >= from) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const measuredSeconds = (clock - from) / 1e6;
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/').replace(/^node:/, 'node:')}:${n.callFrame.lineNumber + 1}`;
for (const [id, t] of dt) {
  const n = byId.get(id);
  self.set(label(n), (self.get(label(n)) ?? 0) + t);
}
// Inclusive time per file: a sample counts once for every distinct file on its stack.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const incl = new Map();
for (const [id, t] of dt) {
  const files = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const url = byId.get(x).callFrame.url;
    if (url) files.add(url.replace(/^.*\/(dist|node_modules)\//, '$1/'));
  }
  for (const f of files) incl.set(f, (incl.get(f) ?? 0) + t);
}
const pct = (t) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
console.log(`${commits} commits in ${seconds} s (${loadText}, flush ${policy}); profile ${join(profileDir, file)}; the last ${measuredSeconds.toFixed(1)} s counted`);
console.log('\nself time, top 40:');
for (const [k, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${pct(t)}  ${k}`);
console.log('\ninclusive time by file, top 30:');
for (const [k, t] of [...incl].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${pct(t)}  ${k}`);
// Inclusive time per function (a sample counts once per distinct function on its stack).
const inclFn = new Map();
for (const [id, t] of dt) {
  const fns = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) fns.add(label(byId.get(x)));
  for (const f of fns) inclFn.set(f, (inclFn.get(f) ?? 0) + t);
}
console.log('\ninclusive time by function, top 60:');
for (const [k, t] of [...inclFn].sort((a, b) => b[1] - a[1]).slice(0, 60)) console.log(`${pct(t)}  ${k}`);
// Self time by kind: our code, dependencies, Node's JavaScript, native calls, GC, idle.
const kinds = new Map();
for (const [id, t] of dt) {
  const n = byId.get(id);
  const url = n.callFrame.url;
  const name = n.callFrame.functionName;
  const kind = name === '(idle)' ? 'idle' : name === '(garbage collector)' ? 'gc' : name === '(program)' ? 'program' :
    url.includes('/dist/') ? 'ours' : url.includes('/node_modules/') ? 'dependencies' : url.startsWith('node:') ? 'node js' : `native ${name}`;
  kinds.set(kind, (kinds.get(kind) ?? 0) + t);
}
const busy = total - (kinds.get('idle') ?? 0);
console.log(`\nself time by kind (% of busy time; busy ${((busy / 1e6 / measuredSeconds) * 100).toFixed(0)}% of one core):`);
for (const [k, t] of [...kinds].sort((a, b) => b[1] - a[1]).slice(0, 15)) if (k !== 'idle') console.log(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
// Node's own JavaScript on the request path (streams, events, timers): which parts.
const nodeSelf = [...self].filter(([k]) => / node:/.test(k) && !/modules|bootstrap|loader/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, 20);
console.log('\nNode.js JavaScript, self time (% of busy), top 20:');
for (const [k, t] of nodeSelf) console.log(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
