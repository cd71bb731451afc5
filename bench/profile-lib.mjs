// CPU profiles of our server for bench/profile-commit.mjs and bench/profile-produce.mjs: starts it
// under `node --cpu-prof`, and summarizes the profile: self time per function, inclusive time per file and per function,
// self time by kind (ours, dependencies, Node's JavaScript, native, GC) and Node's own JavaScript,
// counting only the samples from 1 s after the first one under `handler` (start-up and JIT
// warm-up left out). Returns the profile's path and the seconds counted.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CLI, ROOT, spawnChild, stopChild } from './lib.mjs';

/**
 * Starts our server (`dist/cli.js`, flush policy `policy`, a fresh data directory) under
 * `node --cpu-prof` with its profile going to .tmp/profiles/<name>-<time>/; resolves with its
 * port, its child process, the profile directory, and `stop()` (stops it, which writes the profile, and removes the data).
 */
/** `--config` arguments for each `key=value` of BENCH_SERVER_CONFIGS (comma-separated), e.g. `mock.flush.inline.sync.max.ms=0`. */
function extraConfigs() {
  return (process.env.BENCH_SERVER_CONFIGS ?? '').split(',').filter(Boolean).flatMap((kv) => ['--config', kv.trim()]);
}

export async function startProfiledServer(name, policy) {
  const profileDir = join(ROOT, '.tmp', 'profiles', `${name}-${Date.now()}`);
  mkdirSync(profileDir, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'kmc-profile-'));
  const child = spawnChild(process.execPath, ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', profileDir, CLI, '--port', '0', '--admin-port', '0', '--data-dir', dataDir, '--config', `mock.flush.policy=${policy}`, ...extraConfigs()], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let port;
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    const m = /ready on [^"\s]+:(\d+)/.exec(line);
    if (m) {
      port = Number(m[1]);
      break;
    }
  }
  // The rest of the log is drained unread: a full pipe would block the server's log writes.
  lines.close();
  child.stdout.resume();
  const stop = async () => {
    await stopChild(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { port, child, profileDir, stop };
}

/** Prints the summary of the one .cpuprofile in `profileDir`; `handler` names the request's entry function. */
export function summarizeProfile(profileDir, handler, print = console.log) {
  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const underHandler = new Set();
  for (const n of profile.nodes) {
    for (let x = n.id; x !== undefined; x = parent.get(x)) {
      if (byId.get(x).callFrame.functionName === handler) {
        underHandler.add(n.id);
        break;
      }
    }
  }
  const dt = new Map();
  let clock = 0;
  let from = Infinity;
  profile.samples.forEach((id, i) => {
    clock += profile.timeDeltas[i] ?? 0;
    if (from === Infinity && underHandler.has(id)) from = clock + 1_000_000;
    if (clock >= from) dt.set(id, (dt.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const measuredSeconds = (clock - from) / 1e6;
  const total = [...dt.values()].reduce((a, b) => a + b, 0);
  const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  const self = new Map();
  for (const [id, t] of dt) {
    const k = label(byId.get(id));
    self.set(k, (self.get(k) ?? 0) + t);
  }
  // Inclusive time: a sample counts once for every distinct file (function) on its stack.
  const incl = new Map();
  const inclFn = new Map();
  for (const [id, t] of dt) {
    const files = new Set();
    const fns = new Set();
    for (let x = id; x !== undefined; x = parent.get(x)) {
      const n = byId.get(x);
      if (n.callFrame.url) files.add(n.callFrame.url.replace(/^.*\/(dist|node_modules)\//, '$1/'));
      fns.add(label(n));
    }
    for (const f of files) incl.set(f, (incl.get(f) ?? 0) + t);
    for (const f of fns) inclFn.set(f, (inclFn.get(f) ?? 0) + t);
  }
  const pct = (t) => `${((t / total) * 100).toFixed(1).padStart(5)}%`;
  const top = (map, n) => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);
  print(`profile ${join(profileDir, file)}; the last ${measuredSeconds.toFixed(1)} s counted`);
  print('\nself time, top 40:');
  for (const [k, t] of top(self, 40)) print(`${pct(t)}  ${k}`);
  print('\ninclusive time by file, top 30:');
  for (const [k, t] of top(incl, 30)) print(`${pct(t)}  ${k}`);
  print('\ninclusive time by function, top 60:');
  for (const [k, t] of top(inclFn, 60)) print(`${pct(t)}  ${k}`);
  // Self time by kind: our code, dependencies, Node's JavaScript, native calls, GC, idle.
  const kinds = new Map();
  for (const [id, t] of dt) {
    const { url, functionName: name } = byId.get(id).callFrame;
    const kind = name === '(idle)' ? 'idle' : name === '(garbage collector)' ? 'gc' : name === '(program)' ? 'program' :
      url.includes('/dist/') ? 'ours' : url.includes('/node_modules/') ? 'dependencies' : url.startsWith('node:') ? 'node js' : `native ${name}`;
    kinds.set(kind, (kinds.get(kind) ?? 0) + t);
  }
  const busy = total - (kinds.get('idle') ?? 0);
  print(`\nself time by kind (% of busy time; busy ${((busy / 1e6 / measuredSeconds) * 100).toFixed(0)}% of one core):`);
  for (const [k, t] of top(kinds, 15)) if (k !== 'idle') print(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
  // Node's own JavaScript on the request path (streams, events, timers): which parts.
  print('\nNode.js JavaScript, self time (% of busy), top 20:');
  for (const [k, t] of top(new Map([...self].filter(([k]) => / node:/.test(k) && !/modules|bootstrap|loader/.test(k))), 20)) print(`${((t / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
  return { file: join(profileDir, file), measuredSeconds };
}
