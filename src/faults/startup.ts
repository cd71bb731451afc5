import { readFileSync } from 'node:fs';
import { FaultRuleError, parseRulesDocument } from './types.js';

/**
 * Fault rules to install at start: from `--faults <file>` and from the `KMC_FAULTS` environment
 * variable (JSON text when it starts with `[` or `{`, otherwise a file path), file rules first.
 * Each source is a JSON array of rules, `{ "faults": [...] }`, or a single rule.
 */
export function loadStartupFaults(file: string | undefined, env: string | undefined): unknown[] {
  const rules: unknown[] = [];
  const fromFile = (path: string, what: string): void => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new FaultRuleError(`${what}: cannot read ${path}: ${(err as Error).message}`);
    }
    rules.push(...parseRulesDocument(text, `${what} ${path}`));
  };
  if (file !== undefined) fromFile(file, '--faults');
  const value = env?.trim();
  if (value) {
    if (value.startsWith('[') || value.startsWith('{')) rules.push(...parseRulesDocument(value, 'KMC_FAULTS'));
    else fromFile(value, 'KMC_FAULTS');
  }
  return rules;
}
