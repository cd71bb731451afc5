/** Validation shared by fault rules and their actions: the errors they name, numbers, strings, known fields. */
import { ErrorCode, errorName } from '../protocol/errors.js';
import { MAX_TIMER_MS } from '../util/time.js';
import { closestNames } from '../util/closest-names.js';
import { orList } from '../util/or-list.js';

export { MAX_TIMER_MS };

/** An error by Kafka's name (`REBALANCE_IN_PROGRESS`) or number (`27`). */
export type ErrorRef = string | number;

/** A rule that was refused (bad name, missing field, ...). HTTP answers 400 with its message. */
export class FaultRuleError extends Error {
  override readonly name = 'FaultRuleError';
}

/**
 * Error code for a Kafka error name (case-insensitive) or number, named `what` (`action.error`) in
 * the FaultRuleError. NONE (0) is refused: an error action answers without running the handler, so
 * "error NONE" would acknowledge a request (a Produce) that nothing applied.
 */
export function resolveError(ref: ErrorRef, what: string): { code: number; name: string } {
  const resolved = errorOf(ref);
  if (resolved.code === ErrorCode.NONE) {
    throw new FaultRuleError(`${what} cannot be NONE (0): an error action answers without handling the request; to let requests through use no rule, or a "delay" action`);
  }
  return resolved;
}

/** Kafka's name for an error given by name (any case) or code, for filters; FaultRuleError naming a close one when unknown. */
export function knownErrorName(ref: ErrorRef): string {
  return errorOf(ref).name;
}

function errorOf(ref: ErrorRef): { code: number; name: string } {
  if (typeof ref === 'number' || /^-?\d+$/.test(String(ref).trim())) {
    const code = Number(ref);
    if (!Number.isInteger(code) || code < -32768 || code > 32767) throw new FaultRuleError(`invalid error code ${ref}`);
    return { code, name: errorName(code) };
  }
  const name = String(ref).trim().toUpperCase();
  const code = (ErrorCode as Record<string, number>)[name];
  if (code === undefined) {
    // A misspelt name (NOT_COORDINATR, an old NOT_COORDINATOR_FOR_GROUP) is named back as Kafka spells it.
    // Not NONE, which no rule may answer with.
    const close = closestNames(name, Object.keys(ErrorCode).filter((known) => known !== 'NONE'));
    const hint = close.length > 0 ? `did you mean ${orList(close)}?` : 'use a Kafka error name such as REBALANCE_IN_PROGRESS, or a number';
    const shown = String(ref).length > 100 ? `${String(ref).slice(0, 100)}...` : String(ref);
    throw new FaultRuleError(`unknown error "${shown}" (${hint})`);
  }
  return { code, name };
}

/** A plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


/**
 * The longest a rule may hold one request (ms): `delay.ms`, `delayMs`, `hang.closeAfterMs`,
 * `throttle.ms`, and a hang without `closeAfterMs` ends then too; also the longest
 * `POST /faults/{id}/wait` waits. One hour: longer than any client timeout, short
 * enough that a forgotten rule cannot hold requests (and their memory) for days.
 */
export const MAX_FAULT_HOLD_MS = 3_600_000;

/**
 * `value` as the message shows it: JSON, except that a number JSON cannot write (a rule's
 * `1e400` is Infinity after JSON.parse, which JSON.stringify would print as null) is shown as is.
 */
export function given(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : `${value} (a number beyond a double's range)`;
  return JSON.stringify(value);
}

/**
 * `value` as an integer in [min, max], or FaultRuleError naming `what`. A number, never a string
 * of digits: the rule's JSON schema (/openapi.json) says integer, on every surface (TypeScript,
 * `POST /faults`, `--faults` files, `KMC_FAULTS`); the CLI's flags are converted before.
 */
export function int(value: unknown, what: string, min: number, max = MAX_TIMER_MS): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new FaultRuleError(`${what} must be an integer from ${min} to ${max}, got ${given(value)}`);
  }
  return value;
}

/** `value` as a string, or FaultRuleError naming `what`. */
export function str(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new FaultRuleError(`${what} must be a string, got ${given(value)}`);
  return value;
}

/** Refuses a field of `obj` that `allowed` does not list (FaultRuleError naming `what`). */
export function checkKeys(obj: Record<string, unknown>, allowed: Set<string>, what: string): void {
  for (const key of Object.keys(obj)) if (!allowed.has(key)) throw new FaultRuleError(`unknown field "${key}" in ${what}`);
}

