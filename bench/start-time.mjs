// Start-up benchmark: (1) `node dist/cli.cjs` (the bin) spawned -> first ApiVersions answered (polling the
// Kafka port with a fresh connection every 2 ms), with the server's CPU time at that moment;
// (2) `import('kafka-mock-coordinator')` in a fresh process; (3) in-process `startServer` ->
// ready for an empty in-memory broker (after the import); (4) the same spawn -> first ApiVersions
// for each peer of bench/peers.mjs in BENCH_SERVERS (Kafka from `kafka.Kafka` spawned on storage
// formatted beforehand; the format is not counted), the servers taking turns run by run. Medians
// of repeated runs (BENCH_START_RUNS, 9; Kafka BENCH_START_KAFKA_RUNS, 3: each takes seconds);
// figures are for reading, never asserted by tests. BENCH_BASE_CLI (another build's dist/cli.js)
// adds its spawn rows as server `base`, taking turns with ours, to compare a change A/B.
// Every node process timed here runs without NODE_EXTRA_CA_CERTS: that setting makes Node read a
// CA bundle at each start (~90 ms of CPU on the bench machine), and the server makes no outbound
// TLS, so it measured the environment, not us. The row "Node itself" (`node -e 0`, spawn -> exit)
// is the floor no Node.js server starts under.
import { CLI, ROOT, benchNodeEnv, envInt, envList, percentile, processCpuMs, spawnChild, stopChild, tryApiVersions } from './lib.mjs';
import { PEERS, startPeer } from './peers.mjs';

export function startBenchOptions() {
  return {
    runs: envInt('BENCH_START_RUNS', 9),
    kafkaRuns: envInt('BENCH_START_KAFKA_RUNS', 3),
    basePort: envInt('BENCH_START_PORT', 19650),
    peers: envList('BENCH_SERVERS', PEERS).filter((s) => PEERS.includes(s)),
    baseCli: process.env.BENCH_BASE_CLI,
  };
}

/** One `node -e` doing nothing: ms from spawn to exit, and the CPU ms it reports at its end. */
function nodeItself() {
  const t0 = performance.now();
  const script = 'const c = process.cpuUsage(); process.stdout.write(String((c.user + c.system) / 1000))';
  return new Promise((resolve, reject) => {
    const child = spawnChild(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env: benchNodeEnv() });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - t0, cpuMs: Number(out) }) : reject(new Error(`node -e exited ${code}`))));
  });
}

/** One start of a peer: ms from spawn to the first answered ApiVersions and its CPU ms then, or { missing }. */
async function peerToFirstAnswer(name) {
  const p = await startPeer(name, { waitForGroups: false });
  if (p.missing) return p;
  const cpuMs = processCpuMs(p.child.pid);
  await stopChild(p.child, 'SIGKILL');
  p.cleanup();
  return { ms: p.answeredAt - p.spawnedAt, cpuMs, version: p.version };
}

/** One spawn: ms from spawn to the first answered ApiVersions, and the child's CPU ms then. */
async function spawnToFirstAnswer(port, extraArgs, cli = CLI) {
  const t0 = performance.now();
  const child = spawnChild(process.execPath, [cli, '--port', String(port), '--in-memory', ...extraArgs], {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: benchNodeEnv({ LOG_LEVEL: 'info' }),
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
    const child = spawnChild(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: benchNodeEnv() });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`import run exited ${code}`))));
  });
}

const median = (xs) => percentile([...xs].sort((a, b) => a - b), 50);

export async function runStartBench({ runs, kafkaRuns, basePort, peers, baseCli }) {
  const builds = [{ server: 'ours', cli: CLI }, ...(baseCli ? [{ server: 'base', cli: baseCli }] : [])];
  const variants = [
    { label: 'Node itself: spawn `node -e 0` -> exit', server: 'node-floor', runs, sample: nodeItself },
    ...builds.flatMap(({ server, cli }) => [
      { label: `${server === 'ours' ? '' : `${server}: `}spawn -> ApiVersions (admin API on)`, server, runs, sample: () => spawnToFirstAnswer(basePort, ['--admin-port', String(basePort + 1)], cli) },
      { label: `${server === 'ours' ? '' : `${server}: `}spawn -> ApiVersions (\`--no-admin\`)`, server, runs, sample: () => spawnToFirstAnswer(basePort, ['--no-admin'], cli) },
    ]),
    ...peers.map((name) => ({ label: `${name}: spawn -> ApiVersions`, server: name, runs: name === 'kafka' ? kafkaRuns : runs, sample: () => peerToFirstAnswer(name) })),
  ];
  const samples = new Map(variants.map((v) => [v, []]));
  const missing = new Map();
  // Run by run, every server in turn, so a change in the machine's load weighs on all.
  for (let i = 0; i < Math.max(...variants.map((v) => v.runs)); i++) {
    for (const v of variants) {
      if (i >= v.runs || missing.has(v)) continue;
      const s = await v.sample();
      if (s.missing) missing.set(v, s.missing);
      else samples.get(v).push(s);
    }
  }
  const rows = variants.map((v) => {
    const got = samples.get(v);
    const version = got.find((s) => s.version)?.version;
    const row = missing.has(v)
      ? { label: v.label, server: v.server, missing: missing.get(v) }
      : { label: v.label, server: v.server, version, runs: got.length, ms: median(got.map((s) => s.ms)), cpuMs: median(got.map((s) => s.cpuMs)) };
    console.error(`${v.label}: ${JSON.stringify(row)}`);
    return row;
  });
  const inProc = [];
  for (let i = 0; i < runs; i++) inProc.push(await importAndStart());
  rows.push({ label: "`import('kafka-mock-coordinator')`", server: 'ours', ms: median(inProc.map((s) => s.importMs)), cpuMs: median(inProc.map((s) => s.importCpuMs)) });
  rows.push({ label: '`startServer({ inMemory: true })` -> ready', server: 'ours', ms: median(inProc.map((s) => s.startMs)), cpuMs: median(inProc.map((s) => s.startCpuMs)) });
  for (const r of rows.slice(-2)) console.error(`${r.label}: ${JSON.stringify(r)}`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await runStartBench(startBenchOptions());
}
