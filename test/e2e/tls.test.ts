/**
 * SSL and SASL_SSL listeners from Kafka's PEM and PKCS12 settings (certificates made with openssl
 * at test time): kafkajs with `ssl: { ca }`, untrusted server and client certificates failing as they
 * fail against Kafka, mutual TLS with the principal from the client certificate
 * (`ssl.principal.mapping.rules`), and the key stores Kafka refuses.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { startServer } from '../../src/index.js';
import { startTestServer, TEST_LOG_LEVEL } from '../support/server.js';
import { produceConsumeCommit } from '../support/kafkajs.js';
import { RawClient } from '../support/raw-client.js';
import { makeTestCerts, type TestCerts } from '../support/certs.js';
import { authenticate, SCRAM_JAAS } from '../support/sasl-client.js';

let certs: TestCerts;
beforeAll(async () => {
  certs = await makeTestCerts();
});
afterAll(() => certs?.remove());

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const sslListener = (extra: Record<string, string> = {}) => ({
  listeners: 'SSL://127.0.0.1:0',
  'ssl.keystore.type': 'PEM',
  'ssl.keystore.location': certs.serverKeystorePath,
  ...extra,
});

async function server(config: Record<string, string>) {
  const s = await startTestServer({ config });
  cleanups.push(() => s.stop());
  return s;
}

function kafkajs(bootstrap: string, extra: Partial<KafkaConfig>): Kafka {
  return new Kafka({ clientId: 'kafkajs-tls', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, ...extra });
}

const metadataAll = { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: false };

async function principalOf(s: Awaited<ReturnType<typeof server>>, c: RawClient): Promise<string> {
  await c.send(3, 12, metadataAll, 'principal-probe');
  return s.faults.requests({ clientId: 'principal-probe' }).at(-1)!.principal;
}

describe('TLS listeners', () => {
  it('kafkajs with ssl: { ca } produces, consumes in a group and commits over SSL', async () => {
    const s = await server(sslListener());
    expect(s.listeners[0]).toMatchObject({ name: 'SSL', securityProtocol: 'SSL', bootstrap: `127.0.0.1:${s.port}` });
    const kafka = kafkajs(s.bootstrap, { ssl: { ca: [certs.caCert] }, retry: { retries: 5 } });
    const committed = () => s.broker.offsets.fetch('g-tls', 'tls-topic', 0)?.committedOffset;
    expect(await produceConsumeCommit(kafka, 'tls-topic', 'g-tls', ['x', 'y'], committed, cleanups)).toEqual(['x', 'y']);
    expect(new Set(s.faults.requests({ api: 'Produce' }).map((r) => r.principal))).toEqual(new Set(['User:ANONYMOUS']));
  });

  it('a client that does not trust the server certificate fails the handshake, as against Kafka', async () => {
    const s = await server(sslListener());
    await expect(RawClient.connectTls(s.port, { ca: [certs.rogueCaCert] })).rejects.toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    const producer = kafkajs(s.bootstrap, { ssl: { ca: [certs.rogueCaCert] } }).producer();
    await expect(producer.connect()).rejects.toThrow('unable to verify the first certificate');
    // A plaintext client gets nothing either: the handshake fails on our side.
    await expect((await RawClient.connect(s.port)).send(18, 0, {} as never)).rejects.toThrow('connection closed before a response');
  });

  it('ssl.client.auth=required: the principal is the certificate subject; no or an untrusted certificate is refused', async () => {
    const s = await server(sslListener({ 'ssl.client.auth': 'required', 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': certs.caCertPath }));
    const c = await RawClient.connectTls(s.port, { ca: [certs.caCert], key: certs.clientKey, cert: certs.clientCert });
    cleanups.push(() => c.close());
    expect(await principalOf(s, c)).toBe('User:CN=client,OU=kmc-test,O=kmc');
    const kafka = kafkajs(s.bootstrap, { ssl: { ca: [certs.caCert], key: certs.clientKey, cert: certs.clientCert }, retry: { retries: 5 } });
    const committed = () => s.broker.offsets.fetch('g-mtls', 'mtls-topic', 0)?.committedOffset;
    expect(await produceConsumeCommit(kafka, 'mtls-topic', 'g-mtls', ['m'], committed, cleanups)).toEqual(['m']);
    // TLS 1.3 reports a refused client certificate after the client's handshake: the first request finds the connection closed.
    for (const client of [{}, { key: certs.rogueClientKey, cert: certs.rogueClientCert }]) {
      const refused = await RawClient.connectTls(s.port, { ca: [certs.caCert], ...client }).catch(() => null);
      if (refused) await expect(refused.send(3, 12, metadataAll)).rejects.toThrow(/connection closed/);
    }
    // Only the trusted client's requests reached the server.
    expect(new Set(s.faults.requests().map((r) => r.principal))).toEqual(new Set(['User:CN=client,OU=kmc-test,O=kmc']));
  });

  it('ssl.client.auth=requested: ANONYMOUS without a certificate, refused with an untrusted one; mapping rules name the principal', async () => {
    const s = await server(sslListener({
      'ssl.client.auth': 'requested',
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.certificates': certs.caCert,
      'ssl.principal.mapping.rules': 'RULE:^CN=([^,]*),OU=([^,]*),.*$/$1@$2/U,DEFAULT',
    }));
    const anonymous = await RawClient.connectTls(s.port, { ca: [certs.caCert] });
    cleanups.push(() => anonymous.close());
    expect(await principalOf(s, anonymous)).toBe('User:ANONYMOUS');
    const mapped = await RawClient.connectTls(s.port, { ca: [certs.caCert], key: certs.clientKey, cert: certs.clientCert });
    cleanups.push(() => mapped.close());
    expect(await principalOf(s, mapped)).toBe('User:CLIENT@KMC-TEST');
    const rogue = await RawClient.connectTls(s.port, { ca: [certs.caCert], key: certs.rogueClientKey, cert: certs.rogueClientCert });
    await rogue.waitClosed();
  });

  it('inline PEM, an encrypted PKCS#8 key with ssl.key.password, and PKCS12 key stores', async () => {
    for (const config of [
      sslListener({ 'ssl.keystore.location': '', 'ssl.keystore.key': certs.serverKey, 'ssl.keystore.certificate.chain': certs.serverCert }),
      sslListener({ 'ssl.keystore.location': certs.encryptedServerKeystorePath, 'ssl.key.password': certs.keyPassword }),
      { listeners: 'SSL://127.0.0.1:0', 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': certs.serverP12Path, 'ssl.keystore.password': certs.keyPassword },
    ]) {
      const s = await server(config);
      const c = await RawClient.connectTls(s.port, { ca: [certs.caCert] });
      expect((await c.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      c.close();
    }
  });

  it('refuses at start the key stores Kafka refuses', async () => {
    const start = (config: Record<string, string>) => startServer({ port: 0, inMemory: true, logLevel: TEST_LOG_LEVEL, config });
    await expect(start(sslListener({ 'ssl.keystore.location': certs.rsaPkcs1KeystorePath }))).rejects.toThrow(
      'invalid config ssl.keystore.location: Invalid PEM keystore configs: Private key could not be loaded',
    );
    await expect(start(sslListener({ 'ssl.keystore.location': certs.encryptedServerKeystorePath }))).rejects.toThrow('Private key could not be loaded');
    await expect(start(sslListener({ 'ssl.keystore.password': 'x' }))).rejects.toThrow('SSL key store password cannot be specified with PEM format, only key password may be specified.');
    await expect(start({ listeners: 'SSL://127.0.0.1:0' })).rejects.toThrow('key store type JKS is not supported here');
    await expect(start(sslListener({ 'ssl.keystore.location': certs.caCertPath }))).rejects.toThrow('Invalid PEM keystore configs: Private key not provided');
    await expect(start(sslListener({ 'ssl.principal.mapping.rules': 'RULE:x' }))).rejects.toThrow('Invalid rule: RULE:x');
  });

  it('closes a connection that never finishes its TLS handshake after connections.max.idle.ms, as any idle one', async () => {
    const s = await server(sslListener({ 'connections.max.idle.ms': '1000' }));
    const socket = connect({ port: s.port, host: '127.0.0.1' });
    cleanups.push(() => void socket.destroy());
    socket.on('error', () => {});
    await once(socket, 'connect');
    // No ClientHello: Node's handshake timer (here the idle limit) closes it; the default waits 120 s.
    await once(socket, 'close');
    expect(socket.bytesRead).toBe(0);
  });

  it('SASL_SSL: SCRAM over TLS; the listener-level ssl.client.auth alone applies to it', async () => {
    const s = await startTestServer({
      config: {
        listeners: 'SASL_SSL://127.0.0.1:0',
        'ssl.keystore.type': 'PEM',
        'ssl.keystore.location': certs.serverKeystorePath,
        'ssl.client.auth': 'required',
        'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
        'listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
      },
      addScram: ['SCRAM-SHA-512=[name=alice,password=alice-secret]'],
    });
    cleanups.push(() => s.stop());
    const c = await RawClient.connectTls(s.port, { ca: [certs.caCert] });
    cleanups.push(() => c.close());
    await authenticate(c, { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret' });
    expect(await principalOf(s, c)).toBe('User:alice');
    const kafka = kafkajs(s.bootstrap, { ssl: { ca: [certs.caCert] }, sasl: { mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' }, retry: { retries: 5 } });
    const committed = () => s.broker.offsets.fetch('g-sasl-ssl', 'sasl-ssl-topic', 0)?.committedOffset;
    expect(await produceConsumeCommit(kafka, 'sasl-ssl-topic', 'g-sasl-ssl', ['s'], committed, cleanups)).toEqual(['s']);
  });
});
