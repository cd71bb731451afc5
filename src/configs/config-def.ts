/**
 * Kafka's `ConfigDef` semantics for the values of topic, broker and group configs: parsing by type
 * (`ConfigDef.parseType`), the validators Kafka's definitions use (`Range`, `ValidString`,
 * `ValidList`, the gzip level lambda, `ThrottledReplicaListValidator`), and rendering a value as
 * `ConfigDef.convertToString` does. Failures carry Kafka's `ConfigException` text:
 * `Invalid value <value> for configuration <name>: <reason>`.
 */
import { ConfigType, type ConfigValidator } from './kafka-config-data.js';

/** A value Kafka's ConfigDef refuses (its `ConfigException`); the message is Kafka's. */
export class ConfigValueError extends Error {}

/** `new ConfigException(name, value, reason)`. */
function invalid(name: string, value: string, reason: string): ConfigValueError {
  return new ConfigValueError(`Invalid value ${value} for configuration ${name}: ${reason}`);
}

const INT = /^[+-]?\d+$/;
const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const LONG_MIN = -9223372036854775808n;
const LONG_MAX = 9223372036854775807n;

function integerIn(text: string, lo: bigint, hi: bigint): boolean {
  if (!INT.test(text)) return false;
  const n = BigInt(text);
  return n >= lo && n <= hi;
}

/** Java's `Double.parseDouble` accepts this (decimal or exponent forms, Infinity, NaN). */
function isJavaDouble(text: string): boolean {
  return /^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)[fFdD]?$/.test(text);
}

/**
 * Parses `value` of config `name` as Kafka's `ConfigDef.parseType` does for `type` (ConfigType id),
 * throwing ConfigValueError with Kafka's reason ("Not a number of type LONG", ...). Returns the
 * parsed form: a list for LIST, the trimmed text otherwise.
 */
export function parseConfigValue(name: string, type: number, value: string): string | string[] {
  const text = value.trim();
  switch (type) {
    case ConfigType.BOOLEAN:
      if (text.toLowerCase() !== 'true' && text.toLowerCase() !== 'false') throw invalid(name, value, 'Expected value to be either true or false');
      return text.toLowerCase();
    case ConfigType.INT:
      if (!integerIn(text, INT_MIN, INT_MAX)) throw invalid(name, value, 'Not a number of type INT');
      return text;
    case ConfigType.SHORT:
      if (!integerIn(text, -32768n, 32767n)) throw invalid(name, value, 'Not a number of type SHORT');
      return text;
    case ConfigType.LONG:
      if (!integerIn(text, LONG_MIN, LONG_MAX)) throw invalid(name, value, 'Not a number of type LONG');
      return text;
    case ConfigType.DOUBLE:
      if (!isJavaDouble(text)) throw invalid(name, value, 'Not a number of type DOUBLE');
      return text;
    case ConfigType.LIST:
      return text === '' ? [] : text.split(/\s*,\s*/);
    default:
      return text;
  }
}

function compareNumbers(a: string, b: string): number {
  if (INT.test(a) && INT.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Math.sign(Number(a) - Number(b));
}

/** Checks a parsed value against Kafka's validator, throwing ConfigValueError with its reason. */
export function validateConfigValue(name: string, value: string, parsed: string | string[], validator: ConfigValidator): void {
  switch (validator.kind) {
    case 'range': {
      const n = parsed as string;
      if (validator.min !== null && compareNumbers(n, validator.min) < 0) throw invalid(name, value, `Value must be at least ${validator.min}`);
      if (validator.max !== null && compareNumbers(n, validator.max) > 0) throw invalid(name, value, `Value must be no more than ${validator.max}`);
      return;
    }
    case 'oneOf':
      if (!validator.values.includes(parsed as string)) throw invalid(name, value, `String must be one of: ${validator.values.join(', ')}`);
      return;
    case 'listOf': {
      const items = parsed as string[];
      if (new Set(items).size !== items.length) throw new ConfigValueError(`Configuration '${name}' values must not be duplicated.`);
      for (const item of items) {
        if (item === '') throw new ConfigValueError(`Configuration '${name}' values must not be empty.`);
        if (!validator.values.includes(item)) throw invalid(name, item, `String must be one of: ${validator.values.join(', ')}`);
      }
      return;
    }
    case 'LambdaValidator': {
      // compression.gzip.level: [1,...,9] or -1 (CompressionType.GZIP's levels).
      const n = Number(parsed);
      if (!(n === -1 || (n >= 1 && n <= 9))) throw invalid(name, value, 'Value must be between 1 and 9 or equal to -1');
      return;
    }
    case 'ThrottledReplicaListValidator': {
      const items = parsed as string[];
      const ok = (items.length === 1 && items[0] === '*') || items.every((i) => /^\d+:\d+$/.test(i));
      if (!ok) throw invalid(name, value, 'must be the literal \'*\' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...');
      return;
    }
    default:
      return;
  }
}

/** Java's `Double.toString`. */
export function javaDouble(n: number): string {
  if (n === 0) return Object.is(n, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(n);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(n);
    return s.includes('.') ? s : `${s}.0`;
  }
  let [mantissa, exp] = n.toExponential().split('e') as [string, string];
  if (!mantissa.includes('.')) mantissa += '.0';
  return `${mantissa}E${exp.startsWith('+') ? exp.slice(1) : exp}`;
}

/** A value as Kafka renders the parsed config (`ConfigDef.convertToString`). */
export function renderConfigValue(type: number, raw: string): string {
  switch (type) {
    case ConfigType.INT:
    case ConfigType.LONG:
    case ConfigType.SHORT:
      return INT.test(raw.trim()) ? BigInt(raw.trim()).toString() : raw.trim();
    case ConfigType.DOUBLE:
      return javaDouble(Number(raw));
    case ConfigType.LIST:
      return raw.split(',').map((s) => s.trim()).filter((s) => s !== '').join(',');
    case ConfigType.BOOLEAN:
      return raw.trim().toLowerCase();
    default:
      return raw.trim();
  }
}
