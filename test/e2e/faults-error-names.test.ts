/**
 * A fault rule naming a Kafka error we do not know is refused with the closest names we know
 * ("did you mean NOT_COORDINATOR?"), on every surface that takes rules: in process, POST /faults,
 * `faults add --error`, `--faults <file>` and KMC_FAULTS at start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FaultRuleError } from '../../src/faults/index.js';
import { startTestServer, tempDataDir } from '../support/server.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const run = promisify(execFile);
const misspelt = (error: string) => ({ match: { api: 'OffsetCommit' }, action: { type: 'error', error } });

describe('a fault rule naming an unknown Kafka error', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ adminPort: 0 });
  });
  afterAll(async () => server.stop());

  it('is refused in process with the closest known names, best first; with none close, how to name one', () => {
    const refused = (action: object) => {
      try {
        server.faults.add({ match: { api: 'OffsetCommit' }, action } as Parameters<typeof server.faults.add>[0]);
      } catch (err) {
        expect(err).toBeInstanceOf(FaultRuleError);
        return (err as Error).message;
      }
      throw new Error(`taken: ${JSON.stringify(action)}`);
    };
    expect(refused({ type: 'error', error: 'NOT_COORDINATR' })).toBe('unknown error "NOT_COORDINATR" (did you mean NOT_COORDINATOR?)');
    // Case and dashes as a user types them; Kafka's old name of NOT_COORDINATOR.
    expect(refused({ type: 'error', error: 'not-coordinator' })).toBe('unknown error "not-coordinator" (did you mean NOT_COORDINATOR?)');
    expect(refused({ type: 'error', error: 'NOT_COORDINATOR_FOR_GROUP' })).toBe('unknown error "NOT_COORDINATOR_FOR_GROUP" (did you mean NOT_COORDINATOR?)');
    expect(refused({ type: 'errors', errors: ['NOT_COORDINATOR', 'REBALANCE'] })).toBe('unknown error "REBALANCE" (did you mean REBALANCE_IN_PROGRESS?)');
    expect(refused({ type: 'error', error: 'UNKNOWN' })).toBe('unknown error "UNKNOWN" (did you mean UNKNOWN_TOPIC_ID, UNKNOWN_MEMBER_ID or UNKNOWN_PRODUCER_ID?)');
    // NONE is never offered (no rule may answer with it).
    expect(refused({ type: 'error', error: 'NOPE' })).toBe('unknown error "NOPE" (use a Kafka error name such as REBALANCE_IN_PROGRESS, or a number)');
    expect(server.faults.list()).toEqual([]);
  });

  it('is a 400 on POST /faults with the same message', async () => {
    const res = await fetch(`${server.admin!.url}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(misspelt('ILLEGAL_GENERATON')) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('unknown error "ILLEGAL_GENERATON" (did you mean ILLEGAL_GENERATION?)');
    expect(server.faults.list()).toEqual([]);
  });

  it('stops `faults add --error`, exit 1 with the message', async () => {
    const res = await run(process.execPath, [CLI, 'faults', 'add', '--api', 'OffsetCommit', '--error', 'COORDINATOR_NOT_AVAIL', '--admin', server.admin!.url]).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(res).toMatchObject({ code: 1, stderr: 'kafka-mock-coordinator: POST /faults: 400 unknown error "COORDINATOR_NOT_AVAIL" (did you mean COORDINATOR_NOT_AVAILABLE?)\n' });
    expect(server.faults.list()).toEqual([]);
  });

  it('stops a start from --faults or KMC_FAULTS, exit 2 naming the source and the rule', () => {
    const data = tempDataDir();
    try {
      const file = join(data.dir, 'rules.json');
      writeFileSync(file, JSON.stringify([misspelt('NOT_COORDINATOR'), misspelt('NOT_COORDINATR')]));
      const start = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [CLI, '--in-memory', '--port', '0', '--no-admin', ...args], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
      const fromFile = start(['--faults', file]);
      expect(fromFile.status).toBe(2);
      expect(fromFile.stderr).toBe(`kafka-mock-coordinator: --faults ${file}: rule 2 of 2: unknown error "NOT_COORDINATR" (did you mean NOT_COORDINATOR?)\n`);
      const fromEnv = start([], { KMC_FAULTS: JSON.stringify(misspelt('UNKNOWN_MEMBER')) });
      expect(fromEnv.status).toBe(2);
      expect(fromEnv.stderr).toBe('kafka-mock-coordinator: KMC_FAULTS: rule 1 of 1: unknown error "UNKNOWN_MEMBER" (did you mean UNKNOWN_MEMBER_ID?)\n');
    } finally {
      data.remove();
    }
  });
});
