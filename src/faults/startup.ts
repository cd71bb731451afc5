import { readFileSync } from 'node:fs';
import { FaultRuleError, normalizeRule, parseRulesDocument } from './types.js';
import type { FaultRuleLimits } from './reachable.js';

/**
 * Fault rules to install at start: from `--faults <file>` and from the `KMC_FAULTS` environment
 * variable (JSON text when it starts with `[` or `{`, otherwise a file path), file rules first.
 * Each source is a JSON array of rules, `{ "faults": [...] }`, or a single rule. A bad rule is a
 * FaultRuleError naming its source and its place in it, counted from 1; with `limits` (the
 * server's versions and broker ids), so is a rule that could never fire there; and so is a rule
 * whose id an earlier rule of either source already has (naming where that one is).
 */
export function loadStartupFaults(file: string | undefined, env: string | undefined, limits?: FaultRuleLimits): unknown[] {
  const rules: unknown[] = [];
  /** Where each rule id was first given: "rule 1 of 2 of KMC_FAULTS". */
  const idPlaces = new Map<string, string>();
  const add = (text: string, source: string): void => {
    const parsed = parseRulesDocument(text, source);
    parsed.forEach((rule, i) => {
      const place = `rule ${i + 1} of ${parsed.length}`;
      let id: string | undefined;
      try {
        id = normalizeRule(rule, limits).id;
      } catch (err) {
        throw new FaultRuleError(`${source}: ${place}: ${(err as Error).message}`);
      }
      if (id === undefined) return;
      const first = idPlaces.get(id);
      if (first !== undefined) throw new FaultRuleError(`${source}: ${place}: duplicate rule id ${JSON.stringify(id)} (${first} has it)`);
      idPlaces.set(id, `${place} of ${source}`);
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
