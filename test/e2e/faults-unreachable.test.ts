/**
 * A fault rule that could never fire on this server — an API its `--kafka-version` does not
 * serve, `minVersion` above the highest version it serves of the API, `maxVersion` below the
 * lowest, a `brokerId` outside the cluster — is refused
 * naming the field and the valid range, on every surface (adversarial trial 12: they were taken
 * and silently never fired), as an api key no Kafka API has is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../src/index.js';
import { FaultRuleError } from '../../src/faults/index.js';
import { startTestServer, tempDataDir } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const delay = { type: 'delay', ms: 1 } as const;
const ABOVE_OFFSET_COMMIT = 'match.minVersion 11 is above the highest version served of OffsetCommit (v2 to v10 here), so the rule could never fire';
const OUTSIDE_CLUSTER = 'match.brokerId 4 is not a broker of this cluster (broker ids 1 to 3), so the rule could never fire';

describe('fault rules that could never fire', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0, brokers: 3 });
  });
  afterAll(async () => server.stop());

  it('are refused by faults.add naming the field and the range; the edges of the range are taken', () => {
    const refused = (match: object) => {
      try {
        server.faults.add({ match, action: delay });
      } catch (err) {
        expect(err).toBeInstanceOf(FaultRuleError);
        return (err as Error).message;
      }
      throw new Error(`taken: ${JSON.stringify(match)}`);
    };
    expect(refused({ api: 'OffsetCommit', minVersion: 11 })).toBe(ABOVE_OFFSET_COMMIT);
    expect(refused({ api: 'OffsetCommit', maxVersion: 1 })).toBe('match.maxVersion 1 is below the lowest version served of OffsetCommit (v2 to v10 here), so the rule could never fire');
    expect(refused({ minVersion: 19 })).toBe('match.minVersion 19 is above the highest version served of any API (v0 to v18 here), so the rule could never fire');
    expect(refused({ brokerId: 4 })).toBe(OUTSIDE_CLUSTER);
    expect(refused({ brokerId: 0 })).toBe('match.brokerId 0 is not a broker of this cluster (broker ids 1 to 3), so the rule could never fire');
    const before = server.faults.list().length;
    // Produce is advertised from v0 (served from v3): a rule on v0-v2 is reachable by the asking.
    for (const match of [{ api: 'OffsetCommit', minVersion: 10 }, { api: 'OffsetCommit', maxVersion: 2 }, { api: 'Produce', maxVersion: 0 }, { brokerId: 1 }, { brokerId: 3 }]) {
      server.faults.add({ match, action: delay }).remove();
    }
    expect(server.faults.list()).toHaveLength(before);
  });

  it('are a 400 on POST /faults with the same message, adding nothing', async () => {
    const before = server.faults.list().length;
    for (const [match, message] of [[{ api: 'OffsetCommit', minVersion: 11 }, ABOVE_OFFSET_COMMIT], [{ brokerId: 4 }, OUTSIDE_CLUSTER]] as const) {
      const res = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match, action: delay }) });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toBe(message);
    }
    expect(server.faults.list()).toHaveLength(before);
  });

  it('stop startServer (its startup rules are checked against its cluster size and versions before the broker exists)', async () => {
    await expect(startServer({ port: 0, inMemory: true, brokers: 3, logLevel: 'silent', faults: [{ match: { brokerId: 4 }, action: delay }] })).rejects.toThrow(`rule 1 of 1: ${OUTSIDE_CLUSTER}`);
    await expect(startServer({ port: 0, inMemory: true, logLevel: 'silent', config: { 'node.id': 7 }, faults: [{ match: { brokerId: 1 }, action: delay }] })).rejects.toThrow(
      'rule 1 of 1: match.brokerId 1 is not a broker of this cluster (broker ids 7 to 7), so the rule could never fire',
    );
  });

  it('stop the command line, named by their source: --faults with --brokers, KMC_FAULTS with --kafka-version', () => {
    const data = tempDataDir();
    try {
      const file = join(data.dir, 'rules.json');
      writeFileSync(file, JSON.stringify([{ match: { brokerId: 2 }, action: delay }, { match: { brokerId: 3 }, action: delay }]));
      const run = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--no-admin', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
      const fromFile = run(['--brokers', '2', '--faults', file]);
      expect(fromFile.status).toBe(2);
      expect(fromFile.stderr).toBe(`kafka-mock-coordinator: --faults ${file}: rule 2 of 2: match.brokerId 3 is not a broker of this cluster (broker ids 1 to 2), so the rule could never fire\n`);
      // Kafka 3.9 serves OffsetCommit up to v9.
      const fromEnv = run(['--kafka-version', '3.9'], { KMC_FAULTS: JSON.stringify({ match: { api: 'OffsetCommit', minVersion: 10 }, action: delay }) });
      expect(fromEnv.status).toBe(2);
      expect(fromEnv.stderr).toBe('kafka-mock-coordinator: KMC_FAULTS: rule 1 of 1: match.minVersion 10 is above the highest version served of OffsetCommit (v2 to v9 here), so the rule could never fire\n');
    } finally {
      data.remove();
    }
  });
});

describe('fault rules on an API the chosen Kafka version does not serve', () => {
  const NOT_IN_4_0 = 'match.api ShareFetch is not served here: Kafka 4.0 (--kafka-version) does not advertise it, so the rule could never fire';
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0, kafkaVersion: '4.0.0' });
  });
  afterAll(async () => server.stop());

  it('are refused by faults.add and POST /faults naming the API and the version; an API it serves is taken', async () => {
    // By name and by api key (78: ShareFetch).
    for (const api of ['ShareFetch', 78]) expect(() => server.faults.add({ match: { api }, action: delay })).toThrow(new FaultRuleError(NOT_IN_4_0));
    const res = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ match: { api: 'ShareGroupHeartbeat' }, action: delay }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('match.api ShareGroupHeartbeat is not served here: Kafka 4.0 (--kafka-version) does not advertise it, so the rule could never fire');
    expect(server.faults.list()).toEqual([]);
    server.faults.add({ match: { api: 'ConsumerGroupHeartbeat' }, action: delay }).remove();
    expect(server.faults.list()).toEqual([]);
  });

  it('stop startServer and the command line (KMC_FAULTS with --kafka-version 3.9); 4.1 serves the share APIs', async () => {
    const shareRule = { match: { api: 'ShareFetch' }, action: delay };
    await expect(startServer({ port: 0, inMemory: true, logLevel: 'silent', kafkaVersion: '4.0', faults: [shareRule] })).rejects.toThrow(`rule 1 of 1: ${NOT_IN_4_0}`);
    const run = (version: string) =>
      spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--no-admin', '--kafka-version', version], { env: { ...process.env, KMC_FAULTS: JSON.stringify(shareRule) }, encoding: 'utf8', timeout: 60_000 });
    const refused = run('3.9');
    expect(refused.status).toBe(2);
    expect(refused.stderr).toBe('kafka-mock-coordinator: KMC_FAULTS: rule 1 of 1: match.api ShareFetch is not served here: Kafka 3.9 (--kafka-version) does not advertise it, so the rule could never fire\n');
    const taken = await startServer({ port: 0, inMemory: true, logLevel: 'silent', kafkaVersion: '4.1', faults: [shareRule] });
    try {
      expect(taken.faults.list().map((rule) => rule.match.api)).toEqual(['ShareFetch']);
    } finally {
      await taken.close();
    }
  });
});
