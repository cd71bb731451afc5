import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startCli, kill } from '../support/cli-process.js';
import { tempDataDir } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

describe('command line', () => {
  it.each([
    [['--config', 'num.partitions=many'], {}, /invalid config num\.partitions/],
    [['--config', 'mock.flush.policy=sometimes'], {}, /invalid config mock\.flush\.policy/],
    [[], { KAFKA_OFFSETS_RETENTION_MINUTES: 'soon' }, /invalid config offsets\.retention\.minutes: .* \(from KAFKA_OFFSETS_RETENTION_MINUTES\)/],
    [['--port', 'abc'], {}, /--port/],
    [['--log-level', 'verbose'], {}, /--log-level/],
  ])('exits 2 naming the key for %j %j', (args, env, message) => {
    const res = spawnSync(process.execPath, [CLI, '--in-memory', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 10000 });
    expect(res.status).toBe(2);
    expect(res.stderr).toMatch(message);
  });

  it('exits 2 naming the port when the Kafka port is in use, with no word about the admin API', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const res = spawnSync(process.execPath, [CLI, '--in-memory', '--port', String(port)], { encoding: 'utf8', timeout: 60_000 });
      expect(res.status).toBe(2);
      expect(res.stderr).toContain(`listen EADDRINUSE: address already in use`);
      expect(res.stderr).toContain(`:${port}`);
      expect(res.stdout + res.stderr).not.toContain('admin API');
    } finally {
      taken.close();
    }
  });

  it('exits 2 naming --admin-port (or KMC_ADMIN_PORT) when an explicit admin port is in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const byFlag = spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--admin-port', String(port)], { encoding: 'utf8', timeout: 60_000 });
      expect(byFlag.status).toBe(2);
      expect(byFlag.stderr).toBe(`kafka-mock-coordinator: admin API port ${port} is in use on 127.0.0.1 (--admin-port): pass another, 0 for a free one, or --no-admin\n`);
      const byEnv = spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0'], { env: { ...process.env, KMC_ADMIN_PORT: String(port) }, encoding: 'utf8', timeout: 60_000 });
      expect(byEnv.status).toBe(2);
      expect(byEnv.stderr).toBe(`kafka-mock-coordinator: admin API port ${port} is in use on 127.0.0.1 (KMC_ADMIN_PORT): pass another, 0 for a free one, or --no-admin\n`);
    } finally {
      taken.close();
    }
  });

  it('--version and -V print the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    for (const flag of ['--version', '-V']) {
      const res = spawnSync(process.execPath, [CLI, flag], { encoding: 'utf8', timeout: 60_000 });
      expect(res.status).toBe(0);
      expect(res.stdout).toBe(`${version}\n`);
    }
  });

  it('prints one start-up line, the ready line naming the admin API, and `stopped` last on SIGTERM', async () => {
    const server = await startCli(['--in-memory', '--port', '0', '--admin-port', '0']);
    const messages = (): string[] => server.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    const ready = `kafka-mock-coordinator ready on localhost:${server.port}`;
    try {
      expect(messages()).toHaveLength(1);
      expect(messages()[0]).toMatch(new RegExp(`^${ready} \\(admin API http://127\\.0\\.0\\.1:(\\d+), OpenAPI at http://127\\.0\\.0\\.1:\\1/openapi\\.json\\)$`));
      const closed = once(server.process.stdout!, 'close');
      expect(await kill(server, 'SIGTERM')).toBe(0);
      await closed;
      expect(messages().slice(1)).toEqual(['shutting down', 'stopped']);
    } finally {
      await kill(server, 'SIGKILL');
    }
  });

  it('--stop-when-stdin-closes: stops as on SIGTERM once its stdin ends (the harness that started it exited), not before', async () => {
    const data = tempDataDir('kmc-cli-stdin-');
    const server = await startCli(['--data-dir', data.dir, '--port', '0', '--stop-when-stdin-closes'], {}, 'pipe');
    const messages = (): string[] => server.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
    try {
      // Input on stdin is read and ignored; the broker keeps serving until the end of it.
      server.process.stdin!.write('anything\n');
      const c = await RawClient.connect(server.port);
      const created = await c.send(19, 4, { ...defaultCreateTopicsRequest(), timeoutMs: 5000, topics: [{ ...defaultCreatableTopic(), name: 'stdin-kept', numPartitions: 1, replicationFactor: 1 }] });
      expect(created.topics[0]!.errorCode).toBe(0);
      c.close();
      const exited = once(server.process, 'exit');
      server.process.stdin!.end();
      expect((await exited)[0]).toBe(0);
      expect(messages().slice(-2)).toEqual(['shutting down', 'stopped']);
      expect(JSON.parse(server.lines.at(-2)!)).toMatchObject({ signal: 'stdin closed' });
    } finally {
      await kill(server, 'SIGKILL');
      data.remove();
    }
  });

  it("warns at start that mock.flush.policy=interval without log.flush.interval.ms syncs as 'always' does; not once it is set", async () => {
    const warned = await startCli(['--in-memory', '--port', '0', '--config', 'mock.flush.policy=interval']);
    const set = await startCli(['--in-memory', '--port', '0', '--config', 'mock.flush.policy=interval', '--config', 'log.flush.interval.ms=1000']);
    try {
      const messages = (server: typeof warned): string[] => server.lines.map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(messages(warned)).toEqual([
        "mock.flush.policy=interval with log.flush.interval.ms=-1 syncs before every answer, as 'always' does: set log.flush.interval.ms (e.g. 1000)",
        `kafka-mock-coordinator ready on localhost:${warned.port}`,
      ]);
      expect(messages(set)).toEqual([`kafka-mock-coordinator ready on localhost:${set.port}`]);
    } finally {
      await kill(warned, 'SIGKILL');
      await kill(set, 'SIGKILL');
    }
  });

  it("warns of an unknown config with Kafka's words, naming the broker config of a topic config given as one", async () => {
    const server = await startCli(['--in-memory', '--port', '0', '--config', 'segment.bytes=2048', '--config', 'retention.ms=1000', '--config', 'no.such.key=1', '--config', 'unclean.leader.election.enable=true']);
    try {
      expect(server.lines.map((l) => (JSON.parse(l) as { msg: string }).msg).slice(0, 4)).toEqual([
        "The configuration 'segment.bytes' was supplied but isn't a known config. segment.bytes is a topic config; the broker config that sets its default for every topic is log.segment.bytes.",
        "The configuration 'retention.ms' was supplied but isn't a known config. retention.ms is a topic config; the broker config that sets its default for every topic is log.retention.ms.",
        "The configuration 'no.such.key' was supplied but isn't a known config.",
        // A Kafka broker config (also a topic config of the same name) this server has no use for.
        "The configuration 'unclean.leader.election.enable' is a Kafka broker config this server does not use: it has no effect here.",
      ]);
    } finally {
      await kill(server, 'SIGKILL');
    }
  });

  it('writes its log to a pipe with blocking writes, and logs no line for a connection opened and closed (Kafka logs those at debug)', async () => {
    const server = await startCli(['--in-memory', '--port', '0']);
    try {
      // O_NONBLOCK (04000) on fd 1 would make a full pipe cost each log write a 100 ms sleep
      // (sonic-boom's retry) instead of a wait for the reader.
      const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/${server.process.pid}/fdinfo/1`, 'utf8'))![1]!;
      expect(parseInt(flags, 8) & 0o4000).toBe(0);
      const client = await RawClient.connect(server.port);
      const versions = await client.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
      expect(versions.errorCode).toBe(0);
      client.close();
      const closed = once(server.process.stdout!, 'close');
      expect(await kill(server, 'SIGTERM')).toBe(0);
      await closed;
      expect(server.lines.slice(1).map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shutting down', 'stopped']);
    } finally {
      await kill(server, 'SIGKILL');
    }
  });

  it('keeps serving when the reader of its log goes away (the log is lost, with one line on stderr)', async () => {
    const server = await startCli(['--in-memory', '--port', '0']);
    try {
      let stderr = '';
      const stopped = new Promise<void>((resolve) => server.process.stderr!.on('data', (d) => {
        stderr += d;
        if (stderr.includes('log output stopped')) resolve();
      }));
      // The parent closes its end of the socket pair: the server's next log write fails (ECONNRESET).
      server.process.stdout!.destroy();
      const client = await RawClient.connect(server.port);
      const create = (name: string) => client.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name, numPartitions: 1, replicationFactor: 1 }] });
      expect((await create('logged-1')).topics[0]!.errorCode).toBe(0);
      await stopped;
      expect(stderr).toMatch(/log output stopped \((ECONNRESET|EPIPE)\); still serving/);
      expect((await create('logged-2')).topics[0]!.errorCode).toBe(0);
      expect(server.process.exitCode).toBe(null);
      client.close();
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
    }
  });

  it('keeps serving when the readers of both its log and its stderr go away (adversarial trial 12: it died writing the notice)', async () => {
    const server = await startCli(['--in-memory', '--port', '0']);
    try {
      server.process.stdout!.destroy();
      server.process.stderr!.destroy();
      const client = await RawClient.connect(server.port);
      const create = (name: string) => client.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name, numPartitions: 1, replicationFactor: 1 }] });
      // Each creation logs a line; the second answer comes after the first line's failed write.
      for (const name of ['silent-1', 'silent-2', 'silent-3']) expect((await create(name)).topics[0]!.errorCode).toBe(0);
      expect(server.process.exitCode).toBe(null);
      client.close();
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
    }
  });

  it('takes KAFKA_* environment variables and --config, --config winning', async () => {
    const data = tempDataDir();
    const server = await startCli(['--port', '0', '--data-dir', data.dir, '--config', 'num.partitions=4'], { KAFKA_NUM_PARTITIONS: '2', KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false' });
    try {
      const client = await RawClient.connect(server.port);
      const created = await client.send(19, 4, {
        ...defaultCreateTopicsRequest(), timeoutMs: 5000,
        topics: [{ ...defaultCreatableTopic(), name: 'defaults', numPartitions: -1, replicationFactor: -1 }],
      });
      expect(created.topics[0]!.errorCode).toBe(0);
      const meta = await client.send(3, 9, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'defaults' }, { topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'not-created' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      expect(meta.topics.find((t) => t.name === 'defaults')!.partitions.length).toBe(4);
      expect(meta.topics.find((t) => t.name === 'not-created')!.errorCode).toBe(3); // auto-creation disabled by KAFKA_AUTO_CREATE_TOPICS_ENABLE
      client.close();
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
      data.remove();
    }
  });

  it('takes listeners and log.dirs from KAFKA_* when no flag overrides them', async () => {
    const data = tempDataDir();
    const server = await startCli([], { KAFKA_LISTENERS: 'PLAINTEXT://127.0.0.1:0', KAFKA_LOG_DIRS: data.dir });
    try {
      expect(server.bootstrap).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(server.port).toBeGreaterThan(0);
      expect(server.lines.join('\n')).toContain(JSON.stringify(data.dir));
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
      data.remove();
    }
  });

  it('with several listeners, the ready line names each (the first listener first)', async () => {
    const data = tempDataDir();
    const server = await startCli(['--no-admin'], { KAFKA_LISTENERS: 'PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0', KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT', KAFKA_LOG_DIRS: data.dir });
    try {
      const ready = server.lines.find((line) => line.includes('ready on'))!;
      const msg = (JSON.parse(ready) as { msg: string }).msg;
      expect(msg).toMatch(new RegExp(`^kafka-mock-coordinator ready on ${server.bootstrap} \\(PLAINTEXT; also INTERNAL on 127\\.0\\.0\\.1:\\d+\\)$`));
      expect(msg).not.toContain(`INTERNAL on ${server.bootstrap}`);
      expect(await kill(server, 'SIGTERM')).toBe(0);
    } finally {
      await kill(server, 'SIGKILL');
      data.remove();
    }
  });
});
