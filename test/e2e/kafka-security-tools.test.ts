/**
 * Kafka 4.3.1's own command-line tools against a SASL listener with the StandardAuthorizer:
 * `kafka-acls` (org.apache.kafka.tools.AclCommand) adds, lists and removes ACLs, and
 * `kafka-configs` (kafka.admin.ConfigCommand) creates SCRAM credentials that then authenticate.
 * Needs the jars of scripts/fetch-kafka.sh (test/support/provision.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clients } from '../support/clients.js';
import { startTestServer } from '../support/server.js';
import { connectSasl, plainJaas, SCRAM_JAAS } from '../support/sasl-client.js';

const LIBS = clients().kafkaLibs;
const run = promisify(execFile);

let dir: string;
let adminConfig: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kmc-kafka-tools-'));
  adminConfig = join(dir, 'admin.properties');
  writeFileSync(adminConfig, [
    'security.protocol=SASL_PLAINTEXT',
    'sasl.mechanism=PLAIN',
    'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";',
  ].join('\n') + '\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs one of Kafka's tools by main class (asynchronously: the server lives in this process). */
async function tool(mainClass: string, args: string[]): Promise<string> {
  const { stdout } = await run('java', ['-Xmx256m', '-cp', `${LIBS!}/*`, mainClass, ...args], { encoding: 'utf8', timeout: 120_000 });
  return stdout;
}

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': plainJaas({ admin: 'admin-secret', alice: 'alice-secret' }),
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': SCRAM_JAAS,
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'super.users': 'User:admin',
};

describe.skipIf(LIBS === null)("Kafka 4.3.1's kafka-acls and kafka-configs", () => {
  it('kafka-acls adds, lists and removes ACLs; they take effect', async () => {
    const server = await startTestServer({ config: CONFIG });
    try {
      const acls = (...args: string[]) => tool('org.apache.kafka.tools.AclCommand', ['--bootstrap-server', server.bootstrap, '--command-config', adminConfig, ...args]);
      const added = await acls('--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--operation', 'Describe', '--topic', 'orders', '--group', 'orders-app');
      expect(added).toContain("Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`");
      expect(added).toContain("Adding ACLs for resource `ResourcePattern(resourceType=GROUP, name=orders-app, patternType=LITERAL)`");
      await acls('--add', '--deny-principal', 'User:alice', '--operation', 'Write', '--resource-pattern-type', 'prefixed', '--topic', 'ord');
      // --resource-pattern-type match lists every ACL that applies to the name (literal and prefixed).
      const listed = await acls('--list', '--resource-pattern-type', 'match', '--topic', 'orders');
      expect(listed).toContain('Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`:');
      expect(listed).toContain('(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)');
      expect(listed).toContain('(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)');
      expect(listed).toContain('Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=ord, patternType=PREFIXED)`:');
      expect(listed).toContain('(principal=User:alice, host=*, operation=WRITE, permissionType=DENY)');
      const byPrincipal = await acls('--list', '--principal', 'User:alice');
      expect(byPrincipal).toContain('ACLs for principal `User:alice`');
      expect(byPrincipal).toContain('name=orders-app');

      const who = { principal: { principalType: 'User', name: 'alice' }, host: '127.0.0.1' };
      const authorizer = server.broker.authorizer!;
      expect(authorizer.authorize(who, 3, 2, 'orders')).toBe(true);
      expect(authorizer.authorize(who, 4, 2, 'orders')).toBe(false);
      await acls('--remove', '--force', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'orders');
      expect(authorizer.authorize(who, 3, 2, 'orders')).toBe(false);
      expect(await acls('--list', '--topic', 'orders')).not.toContain('operation=READ');
    } finally {
      await server.stop();
    }
  }, 240_000);

  it('kafka-configs --alter --entity-type users --add-config SCRAM-SHA-256=[...] creates a credential that authenticates; --describe lists it', async () => {
    const server = await startTestServer({ config: CONFIG });
    try {
      const configs = (...args: string[]) => tool('kafka.admin.ConfigCommand', ['--bootstrap-server', server.bootstrap, '--command-config', adminConfig, ...args]);
      const altered = await configs('--alter', '--entity-type', 'users', '--entity-name', 'carol', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=carol-secret]');
      expect(altered).toContain("Completed updating config for user carol.");
      const described = await configs('--describe', '--entity-type', 'users', '--entity-name', 'carol');
      expect(described).toContain('SCRAM credential configs for user-principal \'carol\' are SCRAM-SHA-256=iterations=8192');
      const c = await connectSasl(server.port, { mechanism: 'SCRAM-SHA-256', username: 'carol', password: 'carol-secret' });
      c.close();
      await configs('--alter', '--entity-type', 'users', '--entity-name', 'carol', '--delete-config', 'SCRAM-SHA-256');
      await expect(connectSasl(server.port, { mechanism: 'SCRAM-SHA-256', username: 'carol', password: 'carol-secret' })).rejects.toThrow('SaslAuthenticate error 58');
    } finally {
      await server.stop();
    }
  }, 240_000);
});
