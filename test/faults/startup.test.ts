/** Fault rules given at start (`--faults <file>`, `KMC_FAULTS`): a bad rule is named by its source and its place, counted from 1. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadStartupFaults } from '../../src/faults/startup.js';

const FaultRuleErrorLike = (message: string) => expect.objectContaining({ name: 'FaultRuleError', message });
const dir = mkdtempSync(join(tmpdir(), 'kmc-startup-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const good = { match: { api: 'OffsetCommit' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' } };
const bad = { match: { api: 'OffsetCommit' }, action: { type: 'error', error: 'NO_SUCH_ERROR' } };

describe('startup fault rules', () => {
  it('names the file and the rule counted from 1', () => {
    const file = join(dir, 'rules.json');
    writeFileSync(file, JSON.stringify([good, good, bad]));
    expect(() => loadStartupFaults(file, undefined)).toThrow(
      `--faults ${file}: rule 3 of 3: unknown error "NO_SUCH_ERROR" (use a Kafka error name such as REBALANCE_IN_PROGRESS, or a number)`,
    );
  });

  it('names KMC_FAULTS, inline or as a path, and keeps the rules of both sources in order', () => {
    expect(() => loadStartupFaults(undefined, JSON.stringify({ faults: [bad] }))).toThrow(/^KMC_FAULTS: rule 1 of 1: unknown error "NO_SUCH_ERROR"/);
    const file = join(dir, 'env.json');
    writeFileSync(file, JSON.stringify(bad));
    expect(() => loadStartupFaults(undefined, file)).toThrow(new RegExp(`^KMC_FAULTS ${file}: rule 1 of 1: `));
    const first = join(dir, 'first.json');
    writeFileSync(first, JSON.stringify({ ...good, id: 'from-file' }));
    expect(loadStartupFaults(first, JSON.stringify([{ ...good, id: 'from-env' }])).map((r) => (r as { id: string }).id)).toEqual(['from-file', 'from-env']);
  });
  it('names both places of a duplicate rule id, within one source or across --faults and KMC_FAULTS', () => {
    const rule = (id: string) => ({ id, match: { api: 'Heartbeat' }, action: { type: 'error', error: 'REBALANCE_IN_PROGRESS' } });
    expect(() => loadStartupFaults(undefined, JSON.stringify([rule('a'), rule('b'), rule('a')]))).toThrow(
      FaultRuleErrorLike('KMC_FAULTS: rule 3 of 3: duplicate rule id "a" (rule 1 of 3 of KMC_FAULTS has it)'),
    );
    const file = join(dir, 'dup-rules.json');
    writeFileSync(file, JSON.stringify([rule('a')]));
    expect(() => loadStartupFaults(file, JSON.stringify([rule('b'), rule('a')]))).toThrow(
      FaultRuleErrorLike(`KMC_FAULTS: rule 2 of 2: duplicate rule id "a" (rule 1 of 1 of --faults ${file} has it)`),
    );
    expect(loadStartupFaults(file, JSON.stringify([rule('b')]))).toEqual([rule('a'), rule('b')]);
  });
  it('names a number JSON cannot hold exactly as written (1e400 is Infinity after JSON.parse, 99999999999999999999 is 1e20), by its rule and field, not null', () => {
    const beyond = '(no field takes a number beyond ±9007199254740991, the most a JSON number holds exactly)';
    const delay = (ms: string) => `{"match":{"api":"Heartbeat"},"action":{"type":"delay","ms":${ms}}}`;
    expect(() => loadStartupFaults(undefined, `[${delay('1')},${delay('1e400')}]`)).toThrow(FaultRuleErrorLike(`KMC_FAULTS: rule 2 of 2: action.ms is out of range: 1e400 ${beyond}`));
    expect(() => loadStartupFaults(undefined, `{"faults":[${delay('99999999999999999999')}]}`)).toThrow(FaultRuleErrorLike(`KMC_FAULTS: rule 1 of 1: action.ms is out of range: 99999999999999999999 ${beyond}`));
    const file = join(dir, 'one-rule.json');
    writeFileSync(file, '{"match":{"api":"Heartbeat","partitions":[0,-1e400]},"action":{"type":"delay","ms":1}}');
    expect(() => loadStartupFaults(file, undefined)).toThrow(FaultRuleErrorLike(`--faults ${file}: rule 1 of 1: match.partitions[1] is out of range: -1e400 ${beyond}`));
  });
});
