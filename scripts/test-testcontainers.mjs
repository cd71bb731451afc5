#!/usr/bin/env node
// `npm run test:testcontainers`: the README's Testcontainers recipe, run for real with the
// `testcontainers` npm package against podman's Docker-compatible API (`podman system service`).
//
//   1. starts `podman system service` on a socket of its own (unless DOCKER_HOST is set) and points
//      Testcontainers at it (DOCKER_HOST; Ryuk, the reaper container, off: the script removes what
//      it starts, and Ryuk needs the Docker socket mounted, which rootful podman does not offer);
//   2. the recipe: GenericContainer(image) with the Kafka port published on a free host port P and
//      KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://localhost:P (clients follow the advertised address,
//      so it must be the host's view), the admin port published anywhere, and
//      Wait.forLogMessage(/kafka-mock-coordinator ready on/) (podman runs no HEALTHCHECK timer
//      without systemd, so the log line is the portable signal);
//   3. kafkajs on the host produces, consumes in a group and commits through it; the admin API
//      through the port mapping reports the group's committed offset; /metrics reports it with
//      kafka_exporter's names; the web console's page is served;
//   4. stops the container (Testcontainers' stop) and checks it is gone.
//
// Needs podman (scripts/container-env.sh) and the image: KMC_DOCKER_IMAGE (default
// kafka-mock-coordinator:test, which `npm run test:docker` builds; built here the same way if absent).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { freePort } from './free-port.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const image = process.env.KMC_DOCKER_IMAGE ?? 'kafka-mock-coordinator:test';
let failures = 0;
const cleanups = [];

function log(msg) {
  process.stdout.write(`${msg}\n`);
}

function check(cond, what, detail = '') {
  if (cond) log(`  ok   ${what}`);
  else {
    failures++;
    log(`  FAIL ${what}${detail ? `: ${detail}` : ''}`);
  }
  return cond;
}

/** Starts `podman system service` on a socket in a fresh folder; resolves once the socket answers. */
async function podmanService() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kmc-podman-api-'));
  const socket = path.join(dir, 'podman.sock');
  const child = spawn('podman', ['system', 'service', '--time=0', `unix://${socket}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  cleanups.push(() => {
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });
  // The service makes its socket when ready; there is no other event to wait on.
  const deadline = Date.now() + 60_000;
  while (!existsSync(socket) || !(await pingSocket(socket))) {
    if (child.exitCode !== null) throw new Error(`podman system service exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`podman system service did not answer on ${socket}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return `unix://${socket}`;
}

function pingSocket(socket) {
  return new Promise((resolve) => {
    const c = net.connect(socket, () => {
      c.write('GET /_ping HTTP/1.0\r\n\r\n');
    });
    let data = '';
    c.on('data', (d) => (data += d));
    c.on('end', () => resolve(/^HTTP\/1\.[01] 200/.test(data)));
    c.on('error', () => resolve(false));
  });
}

async function main() {
  if (spawnSync('podman', ['--version']).status !== 0) throw new Error('podman is not installed: run scripts/container-env.sh (Debian, as root) first');
  if (spawnSync('podman', ['image', 'exists', image]).status !== 0) {
    log(`== building ${image} (npm run test:docker builds the same)`);
    const cache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
    const build = spawnSync('podman', ['build', '--format', 'docker', '-t', image, '-f', 'docker/Dockerfile', '--network', 'host', '--volume', `${cache}:/root/.npm`, '--build-arg', 'npm_config_offline=true', '.'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error(`podman build exited ${build.status}`);
  }
  if (!process.env.DOCKER_HOST) {
    process.env.DOCKER_HOST = await podmanService();
    log(`== podman system service on ${process.env.DOCKER_HOST}`);
  }
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
  // Imported after DOCKER_HOST is set: Testcontainers reads its environment when it first connects.
  const { GenericContainer, Wait } = await import('testcontainers');

  // The recipe (README "Testcontainers").
  const kafkaPort = await freePort();
  log(`== GenericContainer(${image}), Kafka on localhost:${kafkaPort}`);
  const started = Date.now();
  const container = await new GenericContainer(image)
    .withExposedPorts({ container: 9092, host: kafkaPort }, 9644)
    .withEnvironment({ KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:${kafkaPort}` })
    .withCommand(['--in-memory'])
    .withWaitStrategy(Wait.forLogMessage(/kafka-mock-coordinator ready on/))
    .withStartupTimeout(120_000)
    .start();
  cleanups.push(() => container.stop().catch(() => {}));
  log(`  started in ${Date.now() - started} ms`);
  const bootstrap = `${container.getHost()}:${container.getMappedPort(9092)}`;
  const admin = `http://${container.getHost() === 'localhost' ? '127.0.0.1' : container.getHost()}:${container.getMappedPort(9644)}`;
  check(container.getMappedPort(9092) === kafkaPort, `Kafka published on the chosen port ${kafkaPort}`, String(container.getMappedPort(9092)));

  const kafka = new Kafka({ clientId: 'testcontainers-check', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'tc-topic', acks: -1, messages: [{ value: 'one' }, { value: 'two' }, { value: 'three' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: 'tc-group', sessionTimeout: 10_000, heartbeatInterval: 300, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'tc-topic', fromBeginning: true });
  const seen = [];
  await new Promise((resolve, reject) => {
    consumer.run({ eachMessage: async ({ message }) => {
      seen.push(message.value.toString());
      if (seen.length === 3) resolve();
    } }).catch(reject);
  });
  await consumer.commitOffsets([{ topic: 'tc-topic', partition: 0, offset: '3' }]);
  check(seen.join(',') === 'one,two,three', 'kafkajs produced and consumed three messages through the advertised listener', seen.join(','));

  const group = await (await fetch(`${admin}/groups/tc-group`)).json();
  check(group.offsets?.[0]?.committedOffset === 3 && group.offsets[0].lag === 0, 'admin API (port mapping): committed offset 3, lag 0', JSON.stringify(group.offsets));
  const metrics = await (await fetch(`${admin}/metrics`)).text();
  check(metrics.includes('kafka_consumergroup_current_offset{consumergroup="tc-group",topic="tc-topic",partition="0"} 3'), '/metrics: kafka_consumergroup_current_offset 3');
  const page = await fetch(`${admin}/`);
  check(page.status === 200 && (await page.text()).includes('<script type="module"'), 'the web console page is served from the container');
  await consumer.disconnect();

  await container.stop();
  const gone = spawnSync('podman', ['ps', '-a', '--format', '{{.ID}}'], { encoding: 'utf8' }).stdout.split('\n').every((id) => id === '' || !container.getId().startsWith(id));
  check(gone, 'the container is removed when stopped');
}

try {
  await main();
} catch (err) {
  failures++;
  log(`  FAIL ${err.stack ?? err}`);
} finally {
  for (const c of cleanups.reverse()) await c();
}
log(failures === 0 ? '== testcontainers: passed' : `== testcontainers: ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);
