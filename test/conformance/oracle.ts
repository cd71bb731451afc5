/**
 * The oracle: a real Apache Kafka 4.3.1 broker (KRaft, single node acting as broker and
 * controller) on loopback ports, run from the jars scripts/fetch-kafka.sh puts in
 * `.kafka/4.3.1/libs`. Storage is formatted with `kafka.tools.StorageTool format --standalone`,
 * then `kafka.Kafka server.properties` runs until `stop()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RawClient } from '../support/raw-client.js';
import { authenticate } from '../support/sasl-client.js';

export const KAFKA_VERSION = '4.3.1';
export const KAFKA_LIBS = resolve(process.cwd(), `.kafka/${KAFKA_VERSION}/libs`);

/**
 * Broker configs both targets get (the scenarios depend on them): no initial rebalance delay,
 * single-replica internal topics, and small KIP-848 timeouts with their minimums lowered (Kafka
 * refuses to start when a value is under its min).
 */
export const SHARED_CONFIG: Readonly<Record<string, string | number>> = {
  'group.initial.rebalance.delay.ms': 0,
  'auto.create.topics.enable': 'true',
  'num.partitions': 1,
  'group.consumer.session.timeout.ms': 6000,
  'group.consumer.min.session.timeout.ms': 1000,
  'group.consumer.heartbeat.interval.ms': 500,
  'group.consumer.min.heartbeat.interval.ms': 100,
  'group.consumer.assignment.interval.ms': 0,
  // Share groups (KIP-932): a short heartbeat interval and assignment at every epoch bump.
  'group.share.heartbeat.interval.ms': 500,
  'group.share.min.heartbeat.interval.ms': 100,
  'group.share.assignment.interval.ms': 0,
};

/**
 * The security settings both targets of the secure scenarios get (test/conformance/security.conformance.test.ts):
 * one SASL_PLAINTEXT listener with PLAIN (admin, alice, bob) and SCRAM-SHA-256/512 (alice, from
 * `SECURE_SCRAM`), and the StandardAuthorizer with `admin` as super user. Kafka's own controller
 * listener is PLAINTEXT, so its broker reaches the controller as User:ANONYMOUS, a super user too
 * (nobody is anonymous on a SASL listener).
 */
export const SECURE_CONFIG: Readonly<Record<string, string | number>> = {
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config':
    'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret" user_bob="bob-secret";',
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
  'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': 'User:admin;User:ANONYMOUS',
  'connection.failed.authentication.delay.ms': 0,
};

/** SCRAM credentials both secure targets start with (`kafka-storage format --add-scram`, our `addScram`). */
export const SECURE_SCRAM: readonly string[] = ['SCRAM-SHA-256=[name=alice,password=alice-secret]', 'SCRAM-SHA-512=[name=alice,password=alice-secret,iterations=8192]'];

/** Authenticates a raw connection to a secure target (SASL/PLAIN); null for the plain targets. */
export type Login = ((c: RawClient, user?: string) => Promise<void>) | null;

export const adminLogin: Login = async (c, user = 'admin') => {
  await authenticate(c, { mechanism: 'PLAIN', username: user, password: `${user}-secret` });
};

export interface KafkaOracle {
  readonly port: number;
  readonly dir: string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

/** `n` distinct free loopback ports (held open together while chosen, so two brokers starting at once never share one). */
export async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolveServer, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolveServer(srv));
  })));
  const ports = servers.map((srv) => {
    const address = srv.address();
    return typeof address === 'object' && address ? address.port : 0;
  });
  await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  return ports;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function java(args: string[], cwd: string): ChildProcess {
  return spawn('java', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
}

const JVM_OPTS = ['-Xms256m', '-Xmx768m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Djava.awt.headless=true'];

/** Sends ApiVersions v3 until the broker answers (or `timeoutMs` passes); on a secure broker, then authenticates. */
export async function waitForApiVersions(port: number, timeoutMs: number, alive: () => boolean = () => true, login: Login = null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (!alive()) throw new Error('the Kafka process exited before answering ApiVersions');
    try {
      const c = await RawClient.connect(port);
      try {
        const r = await c.send(18, 3, { clientSoftwareName: 'kmc-conformance', clientSoftwareVersion: '1' });
        if (r.errorCode === 0 && login) await login(c);
        if (r.errorCode === 0) return;
        last = new Error(`ApiVersions error ${r.errorCode}`);
      } finally {
        c.close();
      }
    } catch (err) {
      last = err;
    }
    await sleep(250);
  }
  throw new Error(`Kafka did not answer ApiVersions on ${port} within ${timeoutMs} ms: ${String(last)}`);
}

/** Waits until the group coordinator is loaded (FindCoordinator answers NONE). */
export async function waitForCoordinator(port: number, timeoutMs: number, login: Login = null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const c = await RawClient.connect(port);
  try {
    if (login) await login(c);
    while (Date.now() < deadline) {
      const r = await c.send(10, 4, { key: '', keyType: 0, coordinatorKeys: ['kmc-conformance-warmup'] });
      if (r.coordinators[0]?.errorCode === 0) {
        // The coordinator answers; make sure it also serves group requests.
        const l = await c.send(16, 4, { statesFilter: [], typesFilter: [] });
        if (l.errorCode === 0) return;
      }
      await sleep(200);
    }
  } finally {
    c.close();
  }
  throw new Error(`Kafka's group coordinator did not become available within ${timeoutMs} ms`);
}

/**
 * Formats a fresh KRaft storage directory and starts Kafka; resolves once it serves groups. With
 * `secure`, its broker listener is SASL_PLAINTEXT with `SECURE_CONFIG` and `SECURE_SCRAM` (the
 * controller listener stays PLAINTEXT).
 */
export async function startKafka(options: { startTimeoutMs?: number; secure?: boolean; ports?: readonly [number, number] } = {}): Promise<KafkaOracle> {
  if (!existsSync(join(KAFKA_LIBS, `kafka_2.13-${KAFKA_VERSION}.jar`))) {
    throw new Error(`Kafka ${KAFKA_VERSION} jars are missing in ${KAFKA_LIBS}: run scripts/fetch-kafka.sh`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-oracle-'));
  const [port, controllerPort] = options.ports ?? (await freePorts(2));
  const listener = options.secure ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
  const props: Record<string, string | number> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.bootstrap.servers': `127.0.0.1:${controllerPort}`,
    listeners: `${listener}://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `${listener}://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': listener,
    'listener.security.protocol.map': `${listener}:${listener},CONTROLLER:PLAINTEXT`,
    ...(options.secure ? { ...SECURE_CONFIG, 'sasl.mechanism.inter.broker.protocol': 'PLAIN' } : {}),
    'log.dirs': join(dir, 'data'),
    'offsets.topic.replication.factor': 1,
    'offsets.topic.num.partitions': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'share.coordinator.state.topic.replication.factor': 1,
    'share.coordinator.state.topic.min.isr': 1,
    ...SHARED_CONFIG,
  };
  const propsFile = join(dir, 'server.properties');
  writeFileSync(propsFile, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');

  const cp = `${KAFKA_LIBS}/*`;
  // StorageTool reads an id that starts with '-' as a flag; Kafka's own Uuid.randomUuid() draws
  // again in that case, and so do we.
  let clusterId: string;
  do clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-'));
  const scram = options.secure ? SECURE_SCRAM.flatMap((s) => ['--add-scram', s]) : [];
  const format = spawnSync('java', [...JVM_OPTS, '-cp', cp, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', propsFile, '--standalone', ...scram], {
    cwd: dir,
    encoding: 'utf8',
  });
  if (format.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`kafka-storage format failed (${format.status}):\n${format.stdout}\n${format.stderr}`);
  }

  const logFile = join(dir, 'kafka.out');
  const out: Buffer[] = [];
  const child = java([...JVM_OPTS, `-Dkafka.logs.dir=${join(dir, 'logs')}`, '-cp', cp, 'kafka.Kafka', propsFile], dir);
  child.stdout?.on('data', (b: Buffer) => out.push(b));
  child.stderr?.on('data', (b: Buffer) => out.push(b));
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });

  const stop = async (): Promise<void> => {
    if (!exited) {
      child.kill('SIGTERM');
      const gone = await Promise.race([new Promise<boolean>((r) => child.once('exit', () => r(true))), sleep(5_000).then(() => false)]);
      if (!gone && !exited) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const timeout = options.startTimeoutMs ?? 90_000;
    const login = options.secure ? adminLogin : null;
    await waitForApiVersions(port, timeout, () => !exited, login);
    await waitForCoordinator(port, timeout, login);
  } catch (err) {
    writeFileSync(logFile, Buffer.concat(out));
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
    await stop();
    throw new Error(`${(err as Error).message}\n--- kafka output (tail) ---\n${tail}`);
  }
  return { port, dir, stop };
}
