/**
 * Java kafka-clients 4.3.1 (test/clients/java) over SASL_SSL with SCRAM-SHA-512 and over mutual
 * TLS: produce 30 messages, consume them in a group, commitSync, restart and resume at the
 * committed offsets (GroupResume); a wrong password and untrusted certificates fail with the
 * exceptions Kafka's clients raise against a Kafka broker. Certificates are made by openssl at
 * test time (test/support/certs.ts).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeJava, expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { makeTestCerts, type TestCerts } from '../support/certs.js';
import { SCRAM_JAAS } from '../support/sasl-client.js';

let certs: TestCerts;
beforeAll(async () => {
  certs = await makeTestCerts();
});
afterAll(() => certs?.remove());

type Server = Awaited<ReturnType<typeof startTestServer>>;

/** A client properties file (`-Dkmc.client.props`) in the certificates' temporary directory. */
function clientProps(name: string, props: Record<string, string>): string {
  const file = join(certs.dir, `${name}.properties`);
  // Properties files read backslashes as escapes: none of these values holds one.
  writeFileSync(file, Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  return file;
}

async function withServer(config: Record<string, string>, fn: (server: Server) => Promise<void>, addScram?: string[]): Promise<void> {
  const server = await startTestServer({ config: { 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': certs.serverKeystorePath, ...config }, addScram });
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

/** GroupResume's two consumers together read all 30 messages once and leave 10 committed per partition. */
async function groupResume(server: Server, propsFile: string, name: string): Promise<void> {
  const run = expectOk(await runJava(javaClasspath!, 'GroupResume', [server.bootstrap, name, `g-${name}`, 'classic'], { clientPropsFile: propsFile }));
  const [first, second] = run.events;
  expect(first!['count'] as number + (second!['count'] as number)).toBe(30);
  expect(second!['committed']).toEqual({ 0: 10, 1: 10, 2: 10 });
  for (const p of [0, 1, 2]) expect(server.broker.offsets.fetch(`g-${name}`, name, p)?.committedOffset).toBe(10n);
}

const SASL_SSL = {
  listeners: 'SASL_SSL://127.0.0.1:0',
  'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
  'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
};
const scramClient = (password: string, ca = certs.caCertPath) => ({
  'security.protocol': 'SASL_SSL',
  'sasl.mechanism': 'SCRAM-SHA-512',
  'sasl.jaas.config': `org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${password}";`,
  'ssl.truststore.type': 'PEM',
  'ssl.truststore.location': ca,
});

describeJava('Java kafka-clients 4.3.1 with SASL_SSL and mutual TLS', () => {
  it('SASL_SSL + SCRAM-SHA-512: produces, consumes in a group, commits and resumes; a wrong password and an untrusted server fail', async () => {
    await withServer(SASL_SSL, async (server) => {
      await groupResume(server, clientProps('scram', scramClient('alice-secret')), 'java-scram');
      expect(new Set(server.faults.requests({ api: 'OffsetCommit' }).map((r) => r.principal))).toEqual(new Set(['User:alice']));
      const wrong = expectOk(await runJava(javaClasspath!, 'Connect', [server.bootstrap], { clientPropsFile: clientProps('scram-wrong', scramClient('wrong')) }));
      expect(wrong.events).toEqual([{ event: 'connect', ok: false, error: 'SaslAuthenticationException', message: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512' }]);
      const untrusted = expectOk(await runJava(javaClasspath!, 'Connect', [server.bootstrap], { clientPropsFile: clientProps('scram-rogue-ca', scramClient('alice-secret', certs.rogueCaCertPath)) }));
      expect(untrusted.events).toEqual([{ event: 'connect', ok: false, error: 'SslAuthenticationException', message: 'SSL handshake failed' }]);
    }, ['SCRAM-SHA-512=[name=alice,password=alice-secret]']);
  }, 240_000);

  it('mutual TLS (ssl.client.auth=required): the principal is the certificate subject; an untrusted client certificate is refused', async () => {
    const mtls = { listeners: 'SSL://127.0.0.1:0', 'ssl.client.auth': 'required', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.caCertPath };
    await withServer(mtls, async (server) => {
      const client = (keystore: string) => ({
        'security.protocol': 'SSL',
        'ssl.truststore.type': 'PEM',
        'ssl.truststore.location': certs.caCertPath,
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': keystore,
      });
      await groupResume(server, clientProps('mtls', client(certs.clientKeystorePath)), 'java-mtls');
      expect(new Set(server.faults.requests({ api: 'OffsetCommit' }).map((r) => r.principal))).toEqual(new Set(['User:CN=client,OU=kmc-test,O=kmc']));
      const rogue = expectOk(await runJava(javaClasspath!, 'Connect', [server.bootstrap], { clientPropsFile: clientProps('mtls-rogue', client(certs.rogueClientKeystorePath)) }));
      // In TLS 1.3 the client finishes its side of the handshake before the server refuses its
      // certificate, so Kafka's client reports the alert as a post-handshake failure.
      expect(rogue.events).toEqual([{ event: 'connect', ok: false, error: 'SslAuthenticationException', message: 'Failed to process post-handshake messages' }]);
    });
  }, 240_000);
});
