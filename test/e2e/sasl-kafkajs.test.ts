/**
 * kafkajs 2.2.4 over SASL_PLAINTEXT with `plain`, `scram-sha-256` and `scram-sha-512`: produce,
 * consume in a group and commit; a wrong password fails as it fails against Kafka.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { startTestServer } from '../support/server.js';
import { produceConsumeCommit } from '../support/kafkajs.js';
import { plainJaas, SCRAM_JAAS } from '../support/sasl-client.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ alice: 'alice-secret' }),
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
  'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
};

function client(bootstrap: string, sasl: SASLOptions, retries = 5): Kafka {
  return new Kafka({ clientId: `kafkajs-${sasl.mechanism}`, brokers: [bootstrap], sasl, logLevel: logLevel.NOTHING, retry: { retries, initialRetryTime: 100 } });
}

describe('kafkajs with SASL', () => {
  for (const sasl of [
    { mechanism: 'plain', username: 'alice', password: 'alice-secret' },
    { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' },
    { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' },
  ] as SASLOptions[]) {
    it(`${sasl.mechanism}: produces, consumes in a group and commits`, async () => {
      const server = await startTestServer({ config: CONFIG, addScram: ['SCRAM-SHA-256=[name=bob,password=bob-secret]', 'SCRAM-SHA-512=[name=bob,password=bob-secret]'] });
      cleanups.push(() => server.stop());
      const kafka = client(server.bootstrap, sasl);
      const topic = `sasl-${sasl.mechanism}`;
      const committed = () => server.broker.offsets.fetch(`g-${topic}`, topic, 0)?.committedOffset;
      expect(await produceConsumeCommit(kafka, topic, `g-${topic}`, ['one', 'two', 'three'], committed, cleanups)).toEqual(['one', 'two', 'three']);
      expect(new Set(server.faults.requests({ api: 'OffsetCommit' }).map((r) => r.clientId))).toEqual(new Set([`kafkajs-${sasl.mechanism}`]));
    });
  }

  it('a wrong password fails with the broker message, for PLAIN and SCRAM', async () => {
    const server = await startTestServer({ config: CONFIG, addScram: ['SCRAM-SHA-256=[name=bob,password=bob-secret]'] });
    cleanups.push(() => server.stop());
    const plain = client(server.bootstrap, { mechanism: 'plain', username: 'alice', password: 'nope' }, 0).producer();
    await expect(plain.connect()).rejects.toThrow('SASL PLAIN authentication failed: Authentication failed: Invalid username or password');
    const scram = client(server.bootstrap, { mechanism: 'scram-sha-256', username: 'bob', password: 'nope' }, 0).producer();
    await expect(scram.connect()).rejects.toThrow('SASL SCRAM SHA256 authentication failed: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256');
  });
});
