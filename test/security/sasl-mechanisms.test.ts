import { describe, expect, it } from 'vitest';
import { parseJaasConfig, parseServerJaasConfig } from '../../src/security/sasl/jaas.js';
import { PlainServer } from '../../src/security/sasl/plain.js';
import { ScramServer, scramUsername } from '../../src/security/sasl/scram.js';
import { credentialFromSaltedPassword, generateCredential, hmac, saltedPassword, scramMechanism, xor } from '../../src/security/sasl/scram-formatter.js';
import { parseAddScram } from '../../src/security/add-scram.js';
import { javaHashSetOrder } from '../../src/util/java-hash.js';
import { ScramClient } from '../support/sasl-client.js';

describe('JAAS config (Kafka syntax)', () => {
  it('parses login modules, flags, quoted and bare values, comments', () => {
    const [entry] = parseJaasConfig(`org.apache.kafka.common.security.plain.PlainLoginModule required
      username="admin" password='admin-secret' /* comment */ user_admin="admin-secret" user_alice=alice-pw // trailing
      user_bob="with \\"quote\\"";`);
    expect(entry!.loginModule).toBe('org.apache.kafka.common.security.plain.PlainLoginModule');
    expect(entry!.flag).toBe('required');
    expect([...entry!.options]).toEqual([['username', 'admin'], ['password', 'admin-secret'], ['user_admin', 'admin-secret'], ['user_alice', 'alice-pw'], ['user_bob', 'with "quote"']]);
    expect(parseServerJaasConfig('org.apache.kafka.common.security.scram.ScramLoginModule REQUIRED;').options.size).toBe(0);
  });

  it("refuses with Kafka's messages", () => {
    expect(() => parseJaasConfig('')).toThrow('Login module not specified in JAAS config');
    expect(() => parseJaasConfig('Module')).toThrow('Login module control flag not specified in JAAS config');
    expect(() => parseJaasConfig('Module mandatory;')).toThrow("Invalid login module control flag 'mandatory' in JAAS config");
    expect(() => parseJaasConfig('Module required a="b"')).toThrow('JAAS config entry not terminated by semi-colon');
    expect(() => parseJaasConfig('Module required a=;')).toThrow("Value not specified for key 'a' in JAAS config");
    expect(() => parseJaasConfig('Module required a=123;')).toThrow("Value not specified for key 'a' in JAAS config");
    expect(() => parseServerJaasConfig('A required; B required;')).toThrow('JAAS config property contains 2 login modules, should be 1 module');
  });
});

describe('SASL/PLAIN server', () => {
  it('accepts the configured users only', () => {
    const server = () => new PlainServer(new Map([['alice', 'alice-secret']]));
    const ok = server();
    expect(ok.evaluate(Buffer.from('\u0000alice\u0000alice-secret'))).toEqual(Buffer.alloc(0));
    expect([ok.complete, ok.authorizationId]).toEqual([true, 'alice']);
    expect(() => server().evaluate(Buffer.from('\u0000alice\u0000alice-secreT'))).toThrow('Authentication failed: Invalid username or password');
    expect(() => server().evaluate(Buffer.from('\u0000\u0000x'))).toThrow('Authentication failed: username not specified');
    expect(() => server().evaluate(Buffer.from('a\u0000b\u0000c\u0000d'))).toThrow('Invalid SASL/PLAIN response: expected 3 tokens, got 4');
  });
});

describe('SCRAM', () => {
  it('computes the RFC 7677 SCRAM-SHA-256 example', () => {
    const m = scramMechanism('SCRAM-SHA-256')!;
    const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
    const salted = saltedPassword(m, 'pencil', salt, 4096);
    const credential = credentialFromSaltedPassword(m, salt, salted, 4096);
    const authMessage = 'n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
    const clientKey = hmac(m, salted, 'Client Key');
    expect(xor(clientKey, hmac(m, credential.storedKey, authMessage)).toString('base64')).toBe('dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(hmac(m, credential.serverKey, authMessage).toString('base64')).toBe('6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  it('a full exchange with a client, and the failures Kafka reports generically', () => {
    for (const name of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
      const info = scramMechanism(name)!;
      const credential = generateCredential(info, 'pw', 4096);
      const server = new ScramServer(info, (user) => (user === 'a=b,c' ? credential : undefined));
      const client = new ScramClient(name, 'a=b,c', 'pw');
      const last = server.evaluate(client.final(server.evaluate(client.first())));
      expect(client.verify(last)).toBe(true);
      expect([server.complete, server.authorizationId]).toEqual([true, 'a=b,c']);
      const wrong = new ScramServer(info, () => credential);
      const liar = new ScramClient(name, 'x', 'not-pw');
      expect(() => wrong.evaluate(liar.final(wrong.evaluate(liar.first())))).toThrow(expect.objectContaining({ name: 'SaslCredentialError', message: 'Invalid client credentials' }));
      expect(() => new ScramServer(info, () => undefined).evaluate(new ScramClient(name, 'x', 'y').first())).toThrow('Authentication failed: Invalid user credentials');
      expect(() => new ScramServer(info, () => credential).evaluate(Buffer.from('y,,n=x,r=abc'))).toThrow('Invalid SCRAM client first message format: y,,n=x,r=abc');
    }
    expect(scramUsername('a=3Db=2Cc')).toBe('a=b,c');
    expect(() => scramUsername('a=b')).toThrow('Invalid username: a=b');
  });

  it('a token login (tokenauth=true, KIP-48) fails as for an unknown token id; other extensions are ignored', () => {
    const info = scramMechanism('SCRAM-SHA-256')!;
    const credential = generateCredential(info, 'pw', 4096);
    const lookup = (user: string) => (user === 'alice' ? credential : undefined);
    // The user's own SCRAM credential is not a token: no fallback to it.
    for (const value of ['true', 'TRUE']) {
      expect(() => new ScramServer(info, lookup).evaluate(Buffer.from(`n,,n=alice,r=abc,tokenauth=${value}`))).toThrow(
        expect.objectContaining({ name: 'SaslCredentialError', message: 'Token Authentication failed: Invalid tokenId : alice' }),
      );
    }
    const first = (extensions: string) => new ScramServer(info, lookup).evaluate(Buffer.from(`n,,n=alice,r=abc${extensions}`)).toString();
    expect(first(',tokenauth=false')).toMatch(/^r=abc[^,]+,s=[^,]+,i=4096$/);
    expect(first(',foo=bar')).toMatch(/^r=abc[^,]+,s=[^,]+,i=4096$/);
  });

  it("repeated and several extensions as Kafka's ScramExtensions parses them: the last value wins, the signed client-first-bare is rebuilt in HashMap order", () => {
    const info = scramMechanism('SCRAM-SHA-256')!;
    const credential = generateCredential(info, 'pw', 4096);
    const lookup = (user: string) => (user === 'alice' ? credential : undefined);
    const login = (client: ScramClient) => {
      const server = new ScramServer(info, lookup);
      return client.verify(server.evaluate(client.final(server.evaluate(client.first()))));
    };
    // Utils.parseMap into a HashMap: a later tokenauth replaces an earlier one.
    expect(() => new ScramServer(info, lookup).evaluate(Buffer.from('n,,n=alice,r=abc,tokenauth=false,tokenauth=true'))).toThrow('Token Authentication failed: Invalid tokenId : alice');
    expect(new ScramServer(info, lookup).evaluate(Buffer.from('n,,n=alice,r=abc,tokenauth=true,tokenauth=false')).toString()).toMatch(/^r=abc[^,]+,s=[^,]+,i=4096$/);
    // The proof signs the extensions once each, in the order of Java's HashMap ("b" hashes
    // to bucket 2 and "a" to 1 of a 4-slot table: a before b).
    expect(login(new ScramClient('SCRAM-SHA-256', 'alice', 'pw', ',tokenauth=true,tokenauth=false', ',tokenauth=false'))).toBe(true);
    expect(() => login(new ScramClient('SCRAM-SHA-256', 'alice', 'pw', ',tokenauth=true,tokenauth=false'))).toThrow('Invalid client credentials');
    expect(login(new ScramClient('SCRAM-SHA-256', 'alice', 'pw', ',b=2,a=1', ',a=1,b=2'))).toBe(true);
    expect(() => login(new ScramClient('SCRAM-SHA-256', 'alice', 'pw', ',b=2,a=1'))).toThrow('Invalid client credentials');
    expect(login(new ScramClient('SCRAM-SHA-256', 'alice', 'pw', ',a=1,b=2'))).toBe(true);
  });

  it('--add-scram as kafka-storage format parses it', () => {
    expect(parseAddScram('SCRAM-SHA-512=[name=alice,password=alice-secret,iterations=8192]')).toMatchObject({ user: 'alice', mechanism: { name: 'SCRAM-SHA-512', type: 2 }, credential: { iterations: 8192 } });
    expect(() => parseAddScram('SCRAM-SHA-1=[name=a,password=b]')).toThrow('The add-scram mechanism SCRAM-SHA-1 is not supported.');
    expect(() => parseAddScram('SCRAM-SHA-256=[password=b]')).toThrow("You must supply 'name' to add-scram");
    expect(() => parseAddScram('SCRAM-SHA-256=[name=a]')).toThrow("You must supply one of 'password' or 'saltedpassword' to add-scram");
    expect(() => parseAddScram('SCRAM-SHA-256=[name=a,password=b,iterations=100]')).toThrow("The 'iterations' value must be >= 4096 for add-scram using SCRAM_SHA_256");
    expect(() => parseAddScram('SCRAM-SHA-256=[name=a,password=b,color=red]')).toThrow('Unknown SCRAM configurations: color');
  });

  it("orders mechanisms as Java's HashSet does (checked with Java 17)", () => {
    expect(javaHashSetOrder(['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'])).toEqual(['PLAIN', 'SCRAM-SHA-512', 'SCRAM-SHA-256']);
    expect(javaHashSetOrder(['SCRAM-SHA-512', 'PLAIN'])).toEqual(['SCRAM-SHA-512', 'PLAIN']);
    expect(javaHashSetOrder(['SCRAM-SHA-256', 'PLAIN'])).toEqual(['PLAIN', 'SCRAM-SHA-256']);
  });
});
