/**
 * `faults add --json`: the rule goes to POST /faults as JSON.stringify writes what JSON.parse read,
 * so a number JSON.parse would round is refused by the command, as written and by its field, as
 * the admin API refuses it in a body.
 */
import { describe, expect, it } from 'vitest';
import { ruleFromFlags } from '../../src/admin/cli-commands.js';

const add = (json: string) => ruleFromFlags({ json, partition: [] } as unknown as Parameters<typeof ruleFromFlags>[0]);

describe('faults add --json', () => {
  it('passes a rule through; refuses a number beyond 2^53 - 1 by its field instead of sending it rounded', () => {
    expect(add('{"match":{"api":"Heartbeat","nth":3},"action":{"type":"error","error":"NOT_COORDINATOR"}}')).toEqual({
      match: { api: 'Heartbeat', nth: 3 },
      action: { type: 'error', error: 'NOT_COORDINATOR' },
    });
    expect(() => add('{"match":{"api":"Heartbeat","nth":9007199254740993},"action":{"type":"error","error":"NOT_COORDINATOR"}}')).toThrow(
      '--json: match.nth is out of range: 9007199254740993 (no field takes a number beyond ±9007199254740991, the most a JSON number holds exactly)',
    );
    expect(() => add('{"match":{"api":"Heartbeat"},"action":{"type":"delay","delayMs":1e400}}')).toThrow('--json: action.delayMs is out of range: 1e400');
    expect(() => add('{"match":')).toThrow(/^--json: /);
  });
});
