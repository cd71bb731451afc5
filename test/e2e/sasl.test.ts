/**
 * SASL listeners (SASL_PLAINTEXT) against the raw protocol: Kafka 4.3.1's answers and connection
 * closing for every step of SaslHandshake and SaslAuthenticate (wrong passwords, unknown users and
 * mechanisms, requests before authentication, SaslHandshake v0), SCRAM credentials through
 * AlterUserScramCredentials / DescribeUserScramCredentials (persisted), and KIP-368
 * re-authentication on the manual clock.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, ConfigError } from '../../src/index.js';
import { startClosableServer, startTestServer, TEST_LOG_LEVEL } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { authenticate, connectSasl, plainJaas, plainToken, ScramClient, SCRAM_JAAS } from '../support/sasl-client.js';
import { saltedPassword, SCRAM_MECHANISMS } from '../../src/security/sasl/scram-formatter.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A SASL_PLAINTEXT listener with PLAIN (alice, admin) and both SCRAM mechanisms (bob). */
export const SASL_CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ alice: 'alice-secret', admin: 'admin-secret' }),
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
  'connection.failed.authentication.delay.ms': 0,
};
const ADD_BOB = ['SCRAM-SHA-256=[name=bob,password=bob-secret]', 'SCRAM-SHA-512=[name=bob,password=bob-secret,iterations=8192]'];

async function saslServer(extra: Record<string, string | number> = {}, options: Parameters<typeof startTestServer>[0] = {}) {
  const server = await startTestServer({ config: { ...SASL_CONFIG, ...extra }, addScram: ADD_BOB, ...options });
  cleanups.push(() => server.stop());
  return server;
}

async function connect(port: number): Promise<RawClient> {
  const c = await RawClient.connect(port);
  cleanups.push(() => c.close());
  return c;
}

const metadataAll = { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false, includeClusterAuthorizedOperations: false };

describe('SASL handshake and authentication', () => {
  it('PLAIN and SCRAM-SHA-256/512 authenticate; requests are served afterwards', async () => {
    const server = await saslServer();
    for (const creds of [
      { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' },
      { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' },
      { mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'bob-secret' },
    ] as const) {
      const c = await connect(server.port);
      const versions = await c.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' });
      expect(versions.apiKeys.find((a) => a.apiKey === 17)).toEqual({ apiKey: 17, minVersion: 0, maxVersion: 1 });
      expect(versions.apiKeys.find((a) => a.apiKey === 36)).toEqual({ apiKey: 36, minVersion: 0, maxVersion: 2 });
      const answers = await authenticate(c, creds);
      expect(answers.at(-1)).toMatchObject({ errorCode: 0, errorMessage: '', sessionLifetimeMs: 0n });
      const md = await c.send(3, 12, metadataAll);
      expect(md.brokers).toEqual([{ nodeId: 1, host: '127.0.0.1', port: server.port, rack: null }]);
    }
    // SaslHandshake answers the enabled mechanisms in Kafka's order (a Java HashSet's).
    const c = await connect(server.port);
    expect(await c.send(17, 1, { mechanism: 'PLAIN' })).toEqual({ errorCode: 0, mechanisms: ['PLAIN', 'SCRAM-SHA-512', 'SCRAM-SHA-256'] });
  });

  it("wrong passwords and unknown users: SASL_AUTHENTICATION_FAILED with Kafka's message, then the connection closes", async () => {
    const server = await saslServer();
    const cases = [
      { mechanism: 'PLAIN', username: 'alice', password: 'wrong', message: 'Authentication failed: Invalid username or password' },
      { mechanism: 'PLAIN', username: 'nobody', password: 'x', message: 'Authentication failed: Invalid username or password' },
      { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'wrong', message: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256' },
      { mechanism: 'SCRAM-SHA-512', username: 'nobody', password: 'x', message: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512' },
      { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret', message: 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512' },
    ] as const;
    for (const { message, ...creds } of cases) {
      const c = await connect(server.port);
      await expect(authenticate(c, creds)).rejects.toThrow(`SaslAuthenticate error 58: ${message}`);
      await c.waitClosed();
    }
    const c = await connect(server.port);
    await c.send(17, 1, { mechanism: 'PLAIN' });
    expect(await c.send(36, 2, { authBytes: plainToken('alice', '') })).toMatchObject({ errorCode: 58, errorMessage: 'Authentication failed: password not specified' });
    await c.waitClosed();
    const d = await connect(server.port);
    await d.send(17, 1, { mechanism: 'PLAIN' });
    expect(await d.send(36, 1, { authBytes: Buffer.from('alice\u0000alice-secret') })).toMatchObject({ errorCode: 58, errorMessage: 'Invalid SASL/PLAIN response: expected 3 tokens, got 2' });
    await d.waitClosed();
    const e = await connect(server.port);
    await e.send(17, 1, { mechanism: 'PLAIN' });
    expect(await e.send(36, 0, { authBytes: plainToken('alice', 'alice-secret', 'admin') })).toMatchObject({
      errorCode: 58, errorMessage: 'Authentication failed: Client requested an authorization id that is different from username',
    });
    await e.waitClosed();
  });

  it('an unknown mechanism answers UNSUPPORTED_SASL_MECHANISM with the enabled ones, then closes', async () => {
    const server = await saslServer({ 'sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN', 'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': '' });
    const c = await connect(server.port);
    expect(await c.send(17, 1, { mechanism: 'SCRAM-SHA-256' })).toEqual({ errorCode: 33, mechanisms: ['SCRAM-SHA-512', 'PLAIN'] });
    await c.waitClosed();
  });

  it('a request before authentication closes the connection without an answer; ApiVersions only once, before the handshake', async () => {
    const server = await saslServer();
    const before = await connect(server.port);
    await expect(before.send(3, 12, metadataAll)).rejects.toThrow('connection closed before a response');
    const twice = await connect(server.port);
    expect((await twice.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    await expect(twice.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).rejects.toThrow('connection closed before a response');
    const afterHandshake = await connect(server.port);
    await afterHandshake.send(18, 0, {} as never);
    await afterHandshake.send(17, 1, { mechanism: 'PLAIN' });
    // During authentication another request gets its own error response (ILLEGAL_SASL_STATE), then the close.
    const md = await afterHandshake.send(3, 9, { ...metadataAll, topics: [{ topicId: '', name: 't' }] } as never);
    expect(md.topics).toEqual([expect.objectContaining({ name: 't', errorCode: 34 })]);
    await afterHandshake.waitClosed();
    // An invalid ApiVersions (v3 software name) is answered and the handshake may follow.
    const invalid = await connect(server.port);
    expect((await invalid.send(18, 3, { clientSoftwareName: '-bad', clientSoftwareVersion: '1' })).errorCode).toBe(42);
    expect((await invalid.send(18, 3, { clientSoftwareName: 'ok', clientSoftwareVersion: '1' })).errorCode).toBe(0);
    await authenticate(invalid, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
  });

  it('reads at most sasl.server.max.receive.size per frame until authenticated, as Kafka; socket.request.max.bytes after', async () => {
    const server = await saslServer();
    // A frame over 512 KiB before authentication closes the connection unanswered, as soon as its size prefix arrives.
    const big = await connect(server.port);
    await big.send(17, 1, { mechanism: 'PLAIN' });
    const prefix = Buffer.alloc(8);
    prefix.writeInt32BE(524_289, 0);
    prefix.writeInt16BE(36, 4);
    prefix.writeInt16BE(2, 6);
    big.socket.write(prefix);
    await big.waitClosed();
    // 512 KiB itself is read: a token that size fails as a bad PLAIN token.
    const atLimit = await connect(server.port);
    await atLimit.send(17, 1, { mechanism: 'PLAIN' });
    const token = Buffer.alloc(524_288 - 64, 0x61);
    const answer = await atLimit.send(36, 2, { authBytes: token });
    expect(answer.errorCode).toBe(58);
    // Once authenticated, frames up to socket.request.max.bytes are read: a SaslAuthenticate of
    // 600,000 bytes is answered (as Kafka's KafkaApis answers one after authentication).
    const authed = await connect(server.port);
    await authenticate(authed, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
    expect(await authed.send(36, 2, { authBytes: Buffer.alloc(600_000, 0x61) })).toMatchObject({ errorCode: 34, errorMessage: 'SaslAuthenticate request received after successful authentication' });
  });

  it('SaslHandshake v0: raw tokens follow (PLAIN and SCRAM), then requests', async () => {
    const server = await saslServer();
    const c = await connect(server.port);
    expect(await c.send(17, 0, { mechanism: 'PLAIN' })).toMatchObject({ errorCode: 0 });
    expect(await c.exchangeFrame(plainToken('alice', 'alice-secret'))).toEqual(Buffer.alloc(0));
    expect((await c.send(3, 12, metadataAll)).brokers).toHaveLength(1);
    const s = await connect(server.port);
    await s.send(17, 0, { mechanism: 'SCRAM-SHA-256' });
    const scram = new ScramClient('SCRAM-SHA-256', 'bob', 'bob-secret');
    const serverFirst = await s.exchangeFrame(scram.first());
    expect(scram.verify(await s.exchangeFrame(scram.final(serverFirst)))).toBe(true);
    expect((await s.send(3, 12, metadataAll)).brokers).toHaveLength(1);
    // A failure cannot be reported in v0: the connection just closes.
    const bad = await connect(server.port);
    await bad.send(17, 0, { mechanism: 'PLAIN' });
    await expect(bad.exchangeFrame(plainToken('alice', 'nope'))).rejects.toThrow('connection closed');
  });

  it('SaslHandshake and SaslAuthenticate outside an authentication answer ILLEGAL_SASL_STATE', async () => {
    const plain = await startTestServer();
    cleanups.push(() => plain.stop());
    const c = await connect(plain.port);
    expect(await c.send(17, 1, { mechanism: 'PLAIN' })).toEqual({ errorCode: 34, mechanisms: [] });
    expect(await c.send(36, 2, { authBytes: Buffer.alloc(0) })).toMatchObject({ errorCode: 34, errorMessage: 'SaslAuthenticate request received after successful authentication' });
    const server = await saslServer();
    const s = await connectSasl(server.port, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
    cleanups.push(() => s.close());
    expect(await s.send(36, 1, { authBytes: Buffer.alloc(0) })).toMatchObject({ errorCode: 34 });
    // No re-authentication without connections.max.reauth.ms: the handshake reaches KafkaApis.
    expect(await s.send(17, 1, { mechanism: 'PLAIN' })).toEqual({ errorCode: 34, mechanisms: [] });
  });

  it("refuses to start what Kafka refuses: a mechanism without its JAAS entry, GSSAPI, a JAAS text Kafka cannot parse, a login module Kafka cannot find", async () => {
    const start = (config: Record<string, string>) => startServer({ port: 0, inMemory: true, logLevel: TEST_LOG_LEVEL, config: { listeners: 'SASL_PLAINTEXT://127.0.0.1:0', ...config } });
    await expect(start({ 'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ a: 'b' }) }))
      .rejects.toThrow("invalid config listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config: Could not find a 'KafkaServer' or 'sasl_plaintext.KafkaServer' entry in the JAAS configuration.");
    await expect(start({})).rejects.toThrow(ConfigError);
    await expect(start({})).rejects.toThrow('SASL mechanism GSSAPI is not supported here');
    await expect(start({ 'sasl.enabled.mechanisms': 'PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_a="b"' }))
      .rejects.toThrow('JAAS config entry not terminated by semi-colon');
    await expect(start({ 'sasl.enabled.mechanisms': 'PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': `${plainJaas({ a: 'b' })} ${plainJaas({ c: 'd' })}` }))
      .rejects.toThrow('JAAS config property contains 2 login modules, should be 1 module');
    await expect(start({ 'sasl.enabled.mechanisms': 'PLAIN', 'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLogin required user_a="b";' }))
      .rejects.toThrow('invalid config listener.name.sasl_plaintext.plain.sasl.jaas.config: No LoginModule found for org.apache.kafka.common.security.plain.PlainLogin');
  });
});

describe('SCRAM credentials (AlterUserScramCredentials, DescribeUserScramCredentials)', () => {
  const upsertion = (name: string, mechanism: 1 | 2, password: string, iterations = 4096) => {
    const salt = Buffer.from(`salt-of-${name}`);
    return { name, mechanism, iterations, salt, saltedPassword: saltedPassword(SCRAM_MECHANISMS[mechanism - 1]!, password, salt, iterations) };
  };

  it('creates, lists, deletes and refuses credentials as Kafka; they survive a restart and authenticate', async () => {
    const { server, close, dataDir } = await startClosableServer(cleanups, { config: SASL_CONFIG });
    const admin = await connectSasl(server.port, { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' });
    cleanups.push(() => admin.close());
    const altered = await admin.send(51, 0, {
      deletions: [{ name: 'ghost', mechanism: 1 }, { name: 'carol', mechanism: 0 }],
      upsertions: [upsertion('dave', 1, 'dave-secret'), upsertion('dave', 2, 'dave-secret'), upsertion('erin', 2, 'erin-secret', 8192), upsertion('few', 1, 'x', 4095), upsertion('many', 1, 'x', 16385), upsertion('', 1, 'x')],
    });
    const byUser = Object.fromEntries(altered.results.map((r) => [r.user, [r.errorCode, r.errorMessage]]));
    expect(byUser).toEqual({
      ghost: [91, 'Attempt to delete a user credential that does not exist'],
      carol: [33, 'Unknown SCRAM mechanism'],
      dave: [92, 'A user credential cannot be altered twice in the same request'],
      erin: [0, null],
      few: [93, 'Too few iterations'],
      many: [93, 'Too many iterations'],
      '': [93, 'Username must not be empty'],
    });
    const described = await admin.send(50, 0, { users: [{ name: 'erin' }, { name: 'nobody' }, { name: 'erin' }] });
    expect(described.results.map((r) => [r.user, r.errorCode, r.errorMessage, r.credentialInfos])).toEqual([
      ['erin', 92, 'Cannot describe SCRAM credentials for the same user twice in a single request: erin', []],
      ['nobody', 91, 'Attempt to describe a user credential that does not exist: nobody', []],
    ]);
    await admin.send(51, 0, { deletions: [], upsertions: [upsertion('erin', 1, 'erin-256')] });
    expect((await admin.send(50, 0, { users: null })).results).toEqual([{ user: 'erin', errorCode: 0, errorMessage: '', credentialInfos: [{ mechanism: 1, iterations: 4096 }, { mechanism: 2, iterations: 8192 }] }]);

    await close();
    const again = await startServer({ port: 0, dataDir, logLevel: TEST_LOG_LEVEL, config: SASL_CONFIG });
    cleanups.push(() => again.close());
    const erin = await connectSasl(again.port, { mechanism: 'SCRAM-SHA-512', username: 'erin', password: 'erin-secret' });
    cleanups.push(() => erin.close());
    expect((await erin.send(50, 0, { users: [{ name: 'erin' }] })).results[0]!.credentialInfos).toHaveLength(2);
    await erin.send(51, 0, { deletions: [{ name: 'erin', mechanism: 2 }], upsertions: [] });
    const gone = await connect(again.port);
    await expect(authenticate(gone, { mechanism: 'SCRAM-SHA-512', username: 'erin', password: 'erin-secret' })).rejects.toThrow('SaslAuthenticate error 58');
    await connectSasl(again.port, { mechanism: 'SCRAM-SHA-256', username: 'erin', password: 'erin-256' }).then((c) => c.close());
  });
});

describe('KIP-368 re-authentication (connections.max.reauth.ms)', () => {
  it('tells the session lifetime, re-authenticates on a handshake, closes an expired session on its next request', async () => {
    const server = await saslServer({ 'connections.max.reauth.ms': 60_000 }, { clock: 'manual', clockStartMs: 1_000_000 });
    const c = await connect(server.port);
    const first = await authenticate(c, { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' }, 1);
    expect(first.map((a) => a.sessionLifetimeMs)).toEqual([0n, 60_000n]);
    // v0 has no lifetime field; the session expires all the same.
    server.clock.advance(59_000);
    expect((await c.send(3, 12, metadataAll)).brokers).toHaveLength(1);
    const again = await authenticate(c, { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' }, 2);
    expect(again.at(-1)!.sessionLifetimeMs).toBe(60_000n);
    server.clock.advance(59_000);
    expect((await c.send(3, 12, metadataAll)).brokers).toHaveLength(1);
    server.clock.advance(2_000);
    await expect(c.send(3, 12, metadataAll)).rejects.toThrow('connection closed before a response');

    const other = await connect(server.port);
    await authenticate(other, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
    server.clock.advance(1_000);
    // Another principal: refused with Kafka's message, then closed.
    await expect(authenticate(other, { mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' }))
      .rejects.toThrow('SaslAuthenticate error 58: Cannot change principals during re-authentication from User.alice: User.admin');
    await other.waitClosed();
    const third = await connect(server.port);
    await authenticate(third, { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' });
    server.clock.advance(1_000);
    // Another mechanism: the handshake is accepted, the next token closes the connection.
    expect(await third.send(17, 1, { mechanism: 'SCRAM-SHA-256' })).toMatchObject({ errorCode: 0 });
    await expect(third.send(36, 2, { authBytes: Buffer.from('n,,n=bob,r=x') })).rejects.toThrow('connection closed before a response');
  });
});
