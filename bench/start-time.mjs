// Start-up benchmark: (1) `node dist/cli.js` spawned -> first ApiVersions answered (polling the
// Kafka port with a fresh connection every 2 ms), with the server's CPU time at that moment;
// (2) `import('kafka-mock-coordinator')` in a fresh process; (3) in-process `startServer` ->
// ready for an empty in-memory broker (after the import). Medians of repeated runs; figures
// are for reading, never asserted by tests.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { CLI, ROOT, envInt, percentile, processCpuMs } from './lib.mjs';

export function startBenchOptions() {
  return { runs: envInt('BENCH_START_RUNS', 9), basePort: envInt('BENCH_START_PORT', 19650) };
}

/** ApiVersions v0 request, correlation id 1, client id "bench". */
const API_VERSIONS_V0 = (() => {
  const clientId = Buffer.from('bench');
  const b = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
  b.writeInt32BE(b.length - 4, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(0, 6);
  b.writeInt32BE(1, 8);
  b.writeInt16BE(clientId.length, 12);
  clientId.copy(b, 14);
  return b;
})();

/** Resolves true when one ApiVersions round trip to `port` succeeds, false on refusal. */
function tryApiVersions(port) {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let got = Buffer.alloc(0);
    socket.on('connect', () => socket.write(API_VERSIONS_V0));
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
        socket.destroy();
        resolve(got.readInt32BE(4) === 1 && got.readInt16BE(8) === 0);
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}

/** One spawn: ms from spawn to the first answered ApiVersions, and the child's CPU ms then. */
async function spawnToFirstAnswer(port, extraArgs) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, '--port', String(port), '--in-memory', ...extraArgs], {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      if (await tryApiVersions(port)) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    const ms = performance.now() - t0;
    return { ms, cpuMs: processCpuMs(child.pid) };
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('exit', r)));
  }
}

/** A fresh `node` that imports the package and starts an empty in-memory server; its own timings. */
function importAndStart() {
  const script = `
    const c0 = process.cpuUsage(); const t0 = performance.now();
    const m = await import('kafka-mock-coordinator');
    const t1 = performance.now(); const c1 = process.cpuUsage(c0);
    const s = await m.startServer({ port: 0, inMemory: true });
    const t2 = performance.now(); const c2 = process.cpuUsage(c0);
    await s.close();
    console.log(JSON.stringify({ importMs: t1 - t0, importCpuMs: (c1.user + c1.system) / 1000,
      startMs: t2 - t1, startCpuMs: (c2.user + c2.system - c1.user - c1.system) / 1000 }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`import run exited ${code}`))));
  });
}

const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);

export async function runStartBench({ runs, basePort }) {
  const rows = [];
  for (const [label, args] of [['spawn -> ApiVersions (admin API on)', ['--admin-port', String(basePort + 1)]], ['spawn -> ApiVersions (`--no-admin`)', ['--no-admin']]]) {
    const samples = [];
    for (let i = 0; i < runs; i++) samples.push(await spawnToFirstAnswer(basePort, args));
    rows.push({ label, ms: median(samples.map((s) => s.ms)), cpuMs: median(samples.map((s) => s.cpuMs)) });
    console.error(`${label}: ${JSON.stringify(rows.at(-1))}`);
  }
  const inProc = [];
  for (let i = 0; i < runs; i++) inProc.push(await importAndStart());
  rows.push({ label: "`import('kafka-mock-coordinator')`", ms: median(inProc.map((s) => s.importMs)), cpuMs: median(inProc.map((s) => s.importCpuMs)) });
  rows.push({ label: '`startServer({ inMemory: true })` -> ready', ms: median(inProc.map((s) => s.startMs)), cpuMs: median(inProc.map((s) => s.startCpuMs)) });
  for (const r of rows.slice(-2)) console.error(`${r.label}: ${JSON.stringify(r)}`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runStartBench(startBenchOptions());
}
