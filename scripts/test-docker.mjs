#!/usr/bin/env node
// `npm run test:docker`: builds docker/Dockerfile with podman and tests the image for real.
//
//   1. podman build --format docker (podman's default OCI format would drop HEALTHCHECK);
//      the runtime image holds dist/, production node_modules and package.json only, runs as node;
//   2. podman run with -p and a named volume; polls `podman healthcheck run` until healthy
//      (no systemd here, so podman runs no healthcheck timer by itself);
//   3. kafkajs on the host produces, consumes in a group and commits through the advertised listener;
//   4. fault rules, when the image has the admin API (skipped and said so otherwise): one from a
//      mounted file (--faults), one from KMC_FAULTS (JSON), one POSTed to the admin API from the
//      host; each fails the next produce to its topic, and the admin API reports it fired;
//   5. podman stop (timed: < 2 s, exit 0) and podman start on the same volume: committed offsets
//      and messages are still there and the group resumes at its committed offsets;
//   6. a misconfigured container (KAFKA_OFFSETS_RETENTION_MINUTES=abc) exits non-zero naming the key;
//   7. prints image size (and the size above node:20-slim) and the start-up times.
//
// Needs podman (scripts/container-env.sh sets it up on Debian) and `npm ci` done on the host.
// Environment:
//   KMC_DOCKER_IMAGE        tag to build and test (default kafka-mock-coordinator:test)
//   KMC_DOCKER_NPM_OFFLINE  1 (default): npm inside the build uses the host's npm cache, mounted,
//                           with --build-arg npm_config_offline=true and --network host (no registry
//                           needed); 0: a plain build that downloads from the registry
//   KMC_DOCKER_SKIP_BUILD   1: test an image already built under KMC_DOCKER_IMAGE
//   KMC_DOCKER_BASE         base image the size is compared with (default node:20-slim)
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const image = process.env.KMC_DOCKER_IMAGE ?? 'kafka-mock-coordinator:test';
const baseImage = process.env.KMC_DOCKER_BASE ?? 'node:20-slim';
const offline = (process.env.KMC_DOCKER_NPM_OFFLINE ?? '1') !== '0';
const tag = `kmc-dockertest-${process.pid}`;
const DATA = '/var/lib/kafka-mock-coordinator';
const STOP_LIMIT_MS = 2000;

const results = [];
const skipped = [];
let failures = 0;
const cleanups = [];

function log(msg) {
  process.stdout.write(`${msg}\n`);
}

// Without systemd podman complains on every run/start/stop that it cannot install healthcheck timers.
const NOISE = /unable to get systemd connection|Removing timer for container/;
function podman(args, { allowFail = false, input, timeoutMs = 600_000 } = {}) {
  const r = spawnSync('podman', args, { cwd: root, encoding: 'utf8', input, timeout: timeoutMs, maxBuffer: 64 << 20 });
  if (r.error) throw new Error(`podman ${args[0]}: ${r.error.message}`);
  const stderr = r.stderr.split('\n').filter((l) => l && !NOISE.test(l)).join('\n');
  if (r.status !== 0 && !allowFail) throw new Error(`podman ${args.join(' ')} exited ${r.status}\n${stderr}\n${r.stdout}`);
  return { status: r.status, stdout: r.stdout.trim(), stderr };
}

function check(cond, what, detail = '') {
  if (cond) {
    log(`  ok   ${what}`);
  } else {
    failures++;
    log(`  FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
  return cond;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(predicate, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** One ApiVersions v0 round trip from the host (as docker/healthcheck.mjs does inside): true on error_code 0. */
function apiVersionsOk(port, timeoutMs = 500) {
  return new Promise((resolve) => {
    const body = Buffer.from([0, 18, 0, 0, 0, 0, 0, 7, 0, 0]);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, body.length]), body]);
    let buf = Buffer.alloc(0);
    const done = (ok) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    const socket = net.connect({ host: '127.0.0.1', port }, () => socket.write(frame));
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
    socket.on('data', (c) => {
      buf = Buffer.concat([buf, c]);
      if (buf.length >= 10 && buf.length >= 4 + buf.readInt32BE(0)) done(buf.readInt32BE(4) === 7 && buf.readInt16BE(8) === 0);
    });
  });
}

/** `podman healthcheck run`, asynchronously so that the host-side ApiVersions poll keeps running meanwhile. */
function healthcheckPasses(name) {
  return new Promise((resolve) => {
    const p = spawn('podman', ['healthcheck', 'run', name], { stdio: 'ignore' });
    const timer = setTimeout(() => p.kill('SIGKILL'), 15_000);
    p.on('error', () => resolve(false));
    p.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
  });
}

/**
 * Starts (`podman run -d ...` or `podman start name`) and measures: until the host's ApiVersions
 * round trip through the -p mapping succeeds, and until `podman healthcheck run` passes.
 */
async function startAndWait(startArgs, name, port) {
  const t0 = performance.now();
  podman(startArgs);
  const tCommand = performance.now() - t0;
  let tAccept = null;
  let tHealthy = null;
  const acceptPoll = (async () => {
    while (tAccept === null && performance.now() - t0 < 30_000) {
      if (await apiVersionsOk(port, 300)) tAccept = performance.now() - t0;
      else await sleep(10);
    }
  })();
  while (tHealthy === null) {
    if (performance.now() - t0 > 30_000) throw new Error(`${name} not healthy within 30 s\n${podman(['logs', name], { allowFail: true }).stderr}`);
    if (await healthcheckPasses(name)) tHealthy = performance.now() - t0;
    else await sleep(50);
  }
  await acceptPoll;
  const state = JSON.parse(podman(['inspect', '--format', '{{json .State}}', name]).stdout);
  // In-container start-up: from the container's start to the server's "ready" log line (pino time).
  // The line comes once the admin API is up too, which can be after the Kafka port accepts; the
  // logs of an earlier run of the same container come first.
  const startedAt = Date.parse(state.StartedAt);
  const readyLine = () => logEntries(name).filter((e) => /ready on/.test(e.msg ?? '') && e.time >= startedAt).pop();
  await waitFor(() => readyLine() !== undefined, 30_000, 'the ready log line').catch(() => {});
  const ready = readyLine();
  const tReadyInside = ready ? ready.time - startedAt : null;
  return { tCommand, tAccept, tHealthy, tReadyInside, health: state.Health?.Status ?? state.Healthcheck?.Status };
}

/** The container's pino log lines (JSON, stdout). */
function logEntries(name) {
  return podman(['logs', name])
    .stdout.split('\n')
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch {
        return null;
      }
    })
    .filter((e) => e !== null && typeof e === 'object');
}

function kafkaClient(port, clientId = 'kmc-docker-test') {
  return new Kafka({ clientId, brokers: [`localhost:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
}

function groupConsumer(kafka, groupId) {
  return kafka.consumer({ groupId, sessionTimeout: 10000, heartbeatInterval: 300, rebalanceTimeout: 10000, maxWaitTimeInMs: 200, retry: { retries: 8 } });
}

/** A rule failing the next Produce to `topic` with TOPIC_AUTHORIZATION_FAILED (not retriable, so the client sees it). */
function produceRule(id, topic) {
  return { id, match: { api: 'Produce', topic }, action: { type: 'error', error: 'TOPIC_AUTHORIZATION_FAILED' }, times: 1 };
}

async function http(method, url, body) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

const fmt = (ms) => (ms === null || ms === undefined ? 'n/a' : `${Math.round(ms)} ms`);
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

async function main() {
  if (spawnSync('podman', ['--version']).status !== 0) {
    throw new Error('podman is not installed: run scripts/container-env.sh (Debian, as root) first');
  }

  // 1. Build.
  log(`== 1. build ${image} (podman build --format docker${offline ? ', npm offline from the host cache' : ''})`);
  if (process.env.KMC_DOCKER_SKIP_BUILD !== '1') {
    const args = ['build', '--format', 'docker', '-t', image, '-f', 'docker/Dockerfile'];
    if (offline) {
      const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
      args.push('--network', 'host', '--volume', `${cache}:/root/.npm`, '--build-arg', 'npm_config_offline=true');
    }
    const t = performance.now();
    podman([...args, '.']);
    results.push(['build time', fmt(performance.now() - t)]);
  }
  const config = JSON.parse(podman(['image', 'inspect', '--format', '{{json .Config}}', image]).stdout);
  // podman shows the docker-format image's HEALTHCHECK at the top level, docker under .Config.
  const healthcheck = JSON.parse(podman(['image', 'inspect', '--format', '{{json .HealthCheck}}', image], { allowFail: true }).stdout || 'null') ?? config.Healthcheck;
  check(Array.isArray(healthcheck?.Test) && healthcheck.Test.join(' ').includes('healthcheck.mjs'), 'image keeps its HEALTHCHECK', JSON.stringify(healthcheck));
  check(config.User === 'node', 'image runs as user node', config.User);
  check(Object.keys(config.ExposedPorts ?? {}).includes('9092/tcp'), 'image exposes 9092', JSON.stringify(config.ExposedPorts));
  check(Object.keys(config.Volumes ?? {}).includes(DATA), `image declares the volume ${DATA}`);
  const listing = podman(['run', '--rm', '--entrypoint', 'sh', image, '-c', 'ls -A /app; ls /app/node_modules; ls /app/node_modules/.bin 2>/dev/null | wc -l']).stdout.split('\n');
  const dev = ['kafkajs', 'typescript', 'vitest', 'vite', '@types'].filter((d) => listing.includes(d));
  check(dev.length === 0, 'runtime image holds no devDependencies', dev.join(', '));
  check(!listing.includes('src') && listing.includes('dist'), 'runtime image holds dist/ and no src/');

  const imageSize = Number(podman(['image', 'inspect', '--format', '{{.Size}}', image]).stdout);
  const baseSize = Number(podman(['image', 'inspect', '--format', '{{.Size}}', baseImage], { allowFail: true }).stdout) || null;
  results.push(['image size', mb(imageSize)]);
  if (baseSize) results.push([`above ${baseImage}`, mb(imageSize - baseSize)]);

  // 2. Run with a port mapping and a named volume; wait for healthy.
  const port = await freePort();
  const name = tag;
  const volume = `${tag}-data`;
  podman(['volume', 'create', volume]);
  cleanups.push(() => podman(['volume', 'rm', '-f', volume], { allowFail: true }));
  cleanups.push(() => podman(['rm', '-f', '-t', '0', name], { allowFail: true }));
  const hasAdmin = /--admin-port/.test(podman(['run', '--rm', image, '--help']).stdout);
  log(`== 2. run ${name} -p ${port}:9092 -v ${volume}:${DATA}`);
  const runArgs = ['run', '-d', '--name', name, '-p', `${port}:9092`, '-v', `${volume}:${DATA}`, '-e', `KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://localhost:${port}`];
  const serverArgs = [];
  let adminUrl = null;
  if (hasAdmin) {
    // Fault rules at start from both sources: a mounted file (--faults) and KMC_FAULTS (JSON).
    const adminPort = await freePort();
    adminUrl = `http://127.0.0.1:${adminPort}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'kmc-docker-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'faults.json');
    writeFileSync(file, JSON.stringify({ faults: [produceRule('file-rule', 'fault-file-topic')] }));
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    runArgs.push('-p', `${adminPort}:9644`, '-v', `${file}:/etc/kafka-mock-coordinator/faults.json:ro`, '-e', `KMC_FAULTS=${JSON.stringify([produceRule('env-rule', 'fault-env-topic')])}`);
    serverArgs.push('--faults', '/etc/kafka-mock-coordinator/faults.json');
    log(`   with -p ${adminPort}:9644 (admin API), --faults <mounted file>, KMC_FAULTS=<json>`);
  }
  const first = await startAndWait([...runArgs, image, ...serverArgs], name, port);
  check(first.health === 'healthy', 'podman reports the container healthy', first.health);
  check(podman(['exec', name, 'id', '-un']).stdout === 'node', 'the server runs as node');
  check(podman(['exec', name, 'cat', '/proc/1/comm']).stdout === 'node', 'node is PID 1');
  results.push(['run: `podman run -d` returned', fmt(first.tCommand)]);
  results.push(['run: ApiVersions from the host OK', fmt(first.tAccept)]);
  results.push(['run: `podman healthcheck run` passed (time-to-healthy)', fmt(first.tHealthy)]);
  results.push(['run: container start -> "ready" log line', fmt(first.tReadyInside)]);

  // 3. kafkajs from the host through the advertised listener.
  log(`== 3. kafkajs on the host via localhost:${port}: produce, consume in a group, commit`);
  const topic = 'docker-topic';
  const groupId = 'docker-group';
  let kafka = kafkaClient(port);
  const admin = kafka.admin();
  await admin.connect();
  const meta = await admin.describeCluster();
  check(meta.brokers.length === 1 && meta.brokers[0].host === 'localhost' && meta.brokers[0].port === port, 'Metadata advertises localhost:<host port>', JSON.stringify(meta.brokers));
  await admin.createTopics({ topics: [{ topic, numPartitions: 2 }] });
  const producer = kafka.producer();
  await producer.connect();
  for (const partition of [0, 1]) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ partition, value: `p${partition}-m${i}` })) });
  }
  const committer = groupConsumer(kafka, groupId);
  await committer.connect();
  await committer.subscribe({ topic, fromBeginning: true });
  const target = new Map([
    [0, '3'],
    [1, '6'],
  ]);
  let consumed = 0;
  let commits = 0;
  await committer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      consumed++;
      if (target.get(partition) !== message.offset) return;
      await committer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      commits++;
    },
  });
  await waitFor(() => commits === 2 && consumed >= 20, 30_000, 'the group to consume 20 messages and commit twice');
  check(consumed === 20, 'the group consumed all 20 messages', String(consumed));
  await committer.disconnect();
  let committed = await admin.fetchOffsets({ groupId, topics: [topic] });
  check(
    JSON.stringify(committed[0].partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)) === '["4","7"]',
    'committed offsets 4 and 7 (OffsetFetch)',
    JSON.stringify(committed),
  );

  // 4. Fault injection from the host.
  if (hasAdmin) {
    log(`== 4. fault rules: from the mounted file, from KMC_FAULTS, and added through the admin API (${adminUrl})`);
    const health = await http('GET', `${adminUrl}/health`);
    check(health.status === 200 && health.body?.status === 'ok', 'GET /health answers ok through the admin port mapping', JSON.stringify(health));
    const added = await http('POST', `${adminUrl}/faults`, produceRule('http-rule', 'fault-http-topic'));
    check(added.status === 201, 'POST /faults adds a rule', JSON.stringify(added));
    for (const [id, faultTopic] of [
      ['file-rule', 'fault-file-topic'],
      ['env-rule', 'fault-env-topic'],
      ['http-rule', 'fault-http-topic'],
    ]) {
      let error = null;
      try {
        await producer.send({ topic: faultTopic, acks: -1, messages: [{ value: 'x' }] });
      } catch (err) {
        error = err;
      }
      check(error !== null && /TOPIC_AUTHORIZATION_FAILED|authoriz/i.test(`${error.type ?? ''} ${error.message}`), `${id}: the first produce to ${faultTopic} fails with TOPIC_AUTHORIZATION_FAILED`, String(error));
      const retry = await producer.send({ topic: faultTopic, acks: -1, messages: [{ value: 'y' }] }).then(() => 'ok', (err) => String(err));
      check(retry === 'ok', `${id}: the next produce succeeds (times: 1)`, retry);
      const info = await http('GET', `${adminUrl}/faults/${id}`);
      check(info.body?.fired === 1 && info.body?.state === 'exhausted', `${id}: the admin API reports it fired once`, JSON.stringify(info.body));
    }
  } else {
    log('== 4. fault rules: SKIPPED, this build has no admin API (`--help` lists no --admin-port)');
    skipped.push('4. fault rules through the admin API / KMC_FAULTS: not in this build (no --admin-port)');
  }

  // Acknowledged right before the stop: a last produce (acks=all) and a commit of a second group.
  await producer.send({ topic, acks: -1, messages: [{ partition: 0, value: 'p0-last' }] });
  await admin.setOffsets({ groupId: 'docker-late-group', topic, partitions: [{ partition: 1, offset: '9' }] });
  await producer.disconnect();
  await admin.disconnect();

  // 5. podman stop (timed), podman start on the same volume.
  log('== 5. podman stop (SIGTERM to PID 1), podman start on the same volume');
  const ts = performance.now();
  podman(['stop', '-t', '10', name]);
  const tStop = performance.now() - ts;
  const stopped = JSON.parse(podman(['inspect', '--format', '{{json .State}}', name]).stdout);
  check(tStop < STOP_LIMIT_MS, `podman stop took ${Math.round(tStop)} ms (< ${STOP_LIMIT_MS} ms)`);
  const shutdownLine = logEntries(name).filter((e) => e.msg === 'shutting down').pop();
  if (shutdownLine) results.push(['stop: "shutting down" log line -> container exit', fmt(Date.parse(stopped.FinishedAt) - shutdownLine.time)]);
  check(stopped.ExitCode === 0, 'the server exited 0 on SIGTERM', String(stopped.ExitCode));
  results.push(['podman stop', fmt(tStop)]);

  const second = await startAndWait(['start', name], name, port);
  check(second.health === 'healthy', 'healthy again after podman start', second.health);
  results.push(['restart: `podman start` -> healthy', fmt(second.tHealthy)]);
  results.push(['restart: container start -> "ready" log line', fmt(second.tReadyInside)]);

  kafka = kafkaClient(port);
  const admin2 = kafka.admin();
  await admin2.connect();
  committed = await admin2.fetchOffsets({ groupId, topics: [topic] });
  check(
    JSON.stringify(committed[0].partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset)) === '["4","7"]',
    'committed offsets 4 and 7 survive the restart',
    JSON.stringify(committed),
  );
  const late = await admin2.fetchOffsets({ groupId: 'docker-late-group', topics: [topic] });
  check(late[0].partitions.find((p) => p.partition === 1)?.offset === '9', 'the commit acknowledged just before stop survives', JSON.stringify(late));
  const ends = (await admin2.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition).map((p) => p.high);
  check(JSON.stringify(ends) === '["11","10"]', 'messages survive the restart (log end offsets 11 and 10)', JSON.stringify(ends));
  const consumer = groupConsumer(kafka, groupId);
  const firstSeen = new Map();
  let count = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      if (!firstSeen.has(partition)) firstSeen.set(partition, `${message.offset}:${message.value}`);
      count++;
    },
  });
  await waitFor(() => count >= 10, 30_000, 'the 10 uncommitted messages');
  await sleep(300);
  await consumer.disconnect();
  await admin2.disconnect();
  check(firstSeen.get(0) === '4:p0-m4' && firstSeen.get(1) === '7:p1-m7', 'the group resumes at its committed offsets', JSON.stringify([...firstSeen]));
  check(count === 10, 'and reads exactly the 10 messages after them', String(count));
  const t2 = performance.now();
  podman(['stop', '-t', '10', name]);
  results.push(['second podman stop', fmt(performance.now() - t2)]);

  // 6. A misconfigured container exits non-zero naming the key.
  log('== 6. misconfigured container: KAFKA_OFFSETS_RETENTION_MINUTES=abc');
  const bad = podman(['run', '--rm', '--name', `${tag}-bad`, '-e', 'KAFKA_OFFSETS_RETENTION_MINUTES=abc', image], { allowFail: true, timeoutMs: 30_000 });
  check(bad.status !== 0, `it exits non-zero (${bad.status})`);
  check(/offsets\.retention\.minutes|KAFKA_OFFSETS_RETENTION_MINUTES/.test(bad.stderr), 'its message names the variable/key', bad.stderr);
  log(`       message: ${bad.stderr.split('\n').pop()}`);
}

let error = null;
try {
  await main();
} catch (err) {
  error = err;
} finally {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {
      // best effort
    }
  }
}
log('== 7. measurements');
for (const [k, v] of results) log(`  ${k.padEnd(52)} ${v}`);
for (const s of skipped) log(`  skipped: ${s}`);
if (error) {
  log(`FAIL: ${error.stack ?? error}`);
  process.exit(1);
}
if (failures) {
  log(`FAIL: ${failures} check(s) failed`);
  process.exit(1);
}
log('test:docker passed');
// kafkajs may leave timers behind.
process.exit(0);
