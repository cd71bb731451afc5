import { readFileSync } from 'node:fs';
import { FaultRuleError, normalizeRule, parseRulesDocument } from './types.js';
import type { FaultRuleLimits } from './reachable.js';

/**
 * Fault rules to install at start: from `--faults <file>` and from the `KMC_FAULTS` environment
 * variable (JSON text when it starts with `[` or `{`, otherwise a file path), file rules first.
 * Each source is a JSON array of rules, `{ "faults": [...] }`, or a single rule. A bad rule is a
 * FaultRuleError naming its source and its place in it, counted from 1; with `limits` (the
 * server's versions and broker ids), so is a rule that could never fire there.
 */
export function loadStartupFaults(file: string | undefined, env: string | undefined, limits?: FaultRuleLimits): unknown[] {
  const rules: unknown[] = [];
  const add = (text: string, source: string): void => {
    const parsed = parseRulesDocument(text, source);
    parsed.forEach((rule, i) => {
      try {
        normalizeRule(rule, limits);
      } catch (err) {
        throw new FaultRuleError(`${source}: rule ${i + 1} of ${parsed.length}: ${(err as Error).message}`);
      }
    });
    rules.push(...parsed);
  };
  const fromFile = (path: string, what: string): void => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new FaultRuleError(`${what}: cannot read ${path}: ${(err as Error).message}`);
    }
    add(text, `${what} ${path}`);
  };
  if (file !== undefined) fromFile(file, '--faults');
  const value = env?.trim();
  if (value) {
    if (value.startsWith('[') || value.startsWith('{')) add(value, 'KMC_FAULTS');
    else fromFile(value, 'KMC_FAULTS');
  }
  return rules;
}
