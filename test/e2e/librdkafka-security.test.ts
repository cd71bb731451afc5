/**
 * librdkafka (Python confluent-kafka) with `security.protocol=SASL_SSL` (SCRAM-SHA-256 and PLAIN,
 * the server's CA in `ssl.ca.location`): produces 20 messages over 3 partitions, consumes them in a
 * group and commits (test/e2e/clients/librdkafka_group.py); a wrong password and an untrusted
 * server certificate fail with what librdkafka reports against Kafka.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { python, runPython, runPythonClient } from '../support/python.js';
import { startTestServer } from '../support/server.js';
import { makeTestCerts, type TestCerts } from '../support/certs.js';
import { plainJaas, SCRAM_JAAS } from '../support/sasl-client.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const GROUP_SCRIPT = join(HERE, 'clients', 'librdkafka_group.py');
const CONNECT_SCRIPT = join(HERE, 'clients', 'librdkafka_connect.py');

let certs: TestCerts;
beforeAll(async () => {
  certs = await makeTestCerts();
});
afterAll(() => certs?.remove());

const config = (flags: Record<string, string>) => Object.entries(flags).flatMap(([k, v]) => ['--config', `${k}=${v}`]);

describe.skipIf(python === null)('librdkafka over SASL_SSL', () => {
  it('SCRAM-SHA-256 and PLAIN: produce, consume in a group and commit; a wrong password and an untrusted CA fail', async () => {
    const server = await startTestServer({
      config: {
        listeners: 'SASL_SSL://127.0.0.1:0',
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': certs.serverKeystorePath,
        'sasl.enabled.mechanisms': 'SCRAM-SHA-256,PLAIN',
        'listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
        'listener.name.sasl_ssl.plain.sasl.jaas.config': plainJaas({ carol: 'carol-secret' }),
      },
      addScram: ['SCRAM-SHA-256=[name=alice,password=alice-secret]'],
    });
    try {
      const security = (mechanism: string, username: string, password: string, ca = certs.caCertPath) => ({
        'security.protocol': 'SASL_SSL', 'sasl.mechanism': mechanism, 'sasl.username': username, 'sasl.password': password, 'ssl.ca.location': ca,
      });
      for (const [mechanism, user, topic] of [['SCRAM-SHA-256', 'alice', 'lrk-scram'], ['PLAIN', 'carol', 'lrk-plain']] as const) {
        server.broker.topics.create(topic, 3);
        const result = await runPythonClient<{ ok: boolean; stage: string; consumed?: Record<string, number>; committed?: Array<{ partition: number; offset: number }> }>(
          'librdkafka SASL_SSL',
          [GROUP_SCRIPT, '--bootstrap', server.bootstrap, '--topic', topic, '--group', `g-${topic}`, '--count', '20', ...config(security(mechanism, user, `${user}-secret`))],
          120_000,
        );
        expect(result.consumed).toEqual({ 0: 7, 1: 7, 2: 6 });
        for (const [p, n] of [[0, 7n], [1, 7n], [2, 6n]] as const) expect(server.broker.offsets.fetch(`g-${topic}`, topic, p)?.committedOffset).toBe(n);
        expect(new Set(server.faults.requests({ api: 'OffsetCommit' }).filter((r) => r.groups.includes(`g-${topic}`)).map((r) => r.principal))).toEqual(new Set([`User:${user}`]));
      }
      const connect = async (flags: Record<string, string>) => JSON.parse((await runPython([CONNECT_SCRIPT, '--bootstrap', server.bootstrap, '--timeout', '5', ...config(flags)], 60_000)).stdout.trim().split('\n').at(-1)!);
      const wrong = await connect(security('SCRAM-SHA-256', 'alice', 'wrong'));
      expect(wrong.ok).toBe(false);
      expect(wrong.errors.join('\n')).toContain('SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256');
      const wrongPlain = await connect(security('PLAIN', 'carol', 'wrong'));
      expect(wrongPlain.errors.join('\n')).toContain('SASL authentication error: Authentication failed: Invalid username or password');
      const untrusted = await connect(security('SCRAM-SHA-256', 'alice', 'alice-secret', certs.rogueCaCertPath));
      expect(untrusted.ok).toBe(false);
      expect(untrusted.errors.join('\n')).toMatch(/SSL handshake failed: .*certificate verify failed/);
    } finally {
      await server.stop();
    }
  }, 240_000);
});
