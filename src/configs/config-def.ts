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

/**
 * What Java's `Integer.parseInt` / `Long.parseLong` read (`ConfigDef.parseType`, Scala's `toInt`):
 * an optional sign, '+' included, then decimal digits. Every integer a config holds is read by it.
 */
export const JAVA_INTEGER = /^[+-]?\d+$/;
const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const LONG_MIN = -9223372036854775808n;
const LONG_MAX = 9223372036854775807n;

function integerIn(text: string, lo: bigint, hi: bigint): boolean {
  if (!JAVA_INTEGER.test(text)) return false;
  const n = BigInt(text);
  return n >= lo && n <= hi;
}

/** Whether `Integer.parseInt(text)` takes `text` (no trimming: callers trim as Kafka does). */
export function isJavaInt(text: string): boolean {
  return integerIn(text, INT_MIN, INT_MAX);
}

/** Java's `String.trim`: strips every char up to U+0020 at both ends (JavaScript's trim strips others). */
function javaTrim(text: string): string {
  let from = 0;
  let to = text.length;
  while (from < to && text.charCodeAt(from) <= 0x20) from++;
  while (to > from && text.charCodeAt(to - 1) <= 0x20) to--;
  return text.slice(from, to);
}

const DECIMAL_DOUBLE = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/;
const HEX_DOUBLE = /^([+-]?)0[xX]([0-9a-fA-F]*)\.?([0-9a-fA-F]*)[pP]([+-]?\d+)[fFdD]?$/;

/**
 * Java's `Double.parseDouble` (`FloatingDecimal.readJavaFormatString`): decimal and exponent forms,
 * hexadecimal floats (`0x1p-2`), an optional `f`/`F`/`d`/`D` suffix, `NaN` and `Infinity` with an
 * optional sign (case-sensitive, no suffix). Null when Java would throw NumberFormatException.
 */
export function parseJavaDouble(value: string): number | null {
  const text = javaTrim(value);
  const special = /^([+-]?)(NaN|Infinity)$/.exec(text);
  if (special) return special[2] === 'NaN' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (DECIMAL_DOUBLE.test(text)) return Number(text.replace(/[fFdD]$/, ''));
  const hex = HEX_DOUBLE.exec(text);
  if (!hex || hex[2]! + hex[3]! === '') return null;
  const [, sign, whole, fraction, exponent] = hex as unknown as [string, string, string, string, string];
  const significand = BigInt(`0x${whole}${fraction}`);
  let power = Number(exponent) - 4 * fraction.length;
  // Number(BigInt) rounds to nearest; the power of two is applied in steps so neither factor overflows.
  let n = Number(significand);
  while (power > 1000 && n !== 0 && Number.isFinite(n)) {
    n *= 2 ** 1000;
    power -= 1000;
  }
  while (power < -1000 && n !== 0) {
    n *= 2 ** -1000;
    power += 1000;
  }
  n *= 2 ** power;
  return sign === '-' ? -n : n;
}

/**
 * Parses `value` of config `name` as Kafka's `ConfigDef.parseType` does for `type` (ConfigType id),
 * throwing ConfigValueError with Kafka's reason ("Not a number of type LONG", ...). Returns the
 * parsed form as Java's `toString` renders it (a number in canonical form: `+05` is `5`, `0x1p-2` is
 * `0.25`, what Kafka's validators name in their messages), a list for LIST, the trimmed text otherwise.
 */
export function parseConfigValue(name: string, type: number, value: string): string | string[] {
  const text = javaTrim(value);
  switch (type) {
    case ConfigType.BOOLEAN:
      if (text.toLowerCase() !== 'true' && text.toLowerCase() !== 'false') throw invalid(name, value, 'Expected value to be either true or false');
      return text.toLowerCase();
    case ConfigType.INT:
      if (!integerIn(text, INT_MIN, INT_MAX)) throw invalid(name, value, 'Not a number of type INT');
      return BigInt(text).toString();
    case ConfigType.SHORT:
      if (!integerIn(text, -32768n, 32767n)) throw invalid(name, value, 'Not a number of type SHORT');
      return BigInt(text).toString();
    case ConfigType.LONG:
      if (!integerIn(text, LONG_MIN, LONG_MAX)) throw invalid(name, value, 'Not a number of type LONG');
      return BigInt(text).toString();
    case ConfigType.DOUBLE: {
      const n = parseJavaDouble(text);
      if (n === null) throw invalid(name, value, 'Not a number of type DOUBLE');
      return javaDouble(n);
    }
    case ConfigType.LIST:
      // Kafka 4.3's parseType drops repeated items (with a warning) before any validator sees them.
      return text === '' ? [] : [...new Set(text.split(/\s*,\s*/))];
    default:
      return text;
  }
}

/** Sign of a - b; NaN when either is NaN, so that neither bound refuses it (as Java's `<` and `>`). */
function compareNumbers(a: string, b: string): number {
  if (JAVA_INTEGER.test(a) && JAVA_INTEGER.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return Math.sign(Number(a) - Number(b));
}

/**
 * Checks a parsed value (parseConfigValue's) against Kafka's validator, throwing ConfigValueError
 * with its reason; the message names the parsed value, as `ConfigException(name, parsedValue, ...)`
 * does (`5` of a DOUBLE is "Invalid value 5.0 ..."). A NaN DOUBLE passes a Range (Java compares
 * NaN false both ways).
 */
export function validateConfigValue(name: string, value: string, parsed: string | string[], validator: ConfigValidator): void {
  switch (validator.kind) {
    case 'range': {
      const n = parsed as string;
      if (validator.min !== null && compareNumbers(n, validator.min) < 0) throw invalid(name, n, `Value must be at least ${validator.min}`);
      if (validator.max !== null && compareNumbers(n, validator.max) > 0) throw invalid(name, n, `Value must be no more than ${validator.max}`);
      return;
    }
    case 'oneOf':
      if (!validator.values.includes(parsed as string)) throw invalid(name, parsed as string, `String must be one of: ${validator.values.join(', ')}`);
      return;
    case 'listOf': {
      // ValidList: no valid strings means any value.
      const items = parsed as string[];
      if (new Set(items).size !== items.length) throw new ConfigValueError(`Configuration '${name}' values must not be duplicated.`);
      for (const item of items) {
        if (item === '') throw new ConfigValueError(`Configuration '${name}' values must not be empty.`);
        if (validator.values.length > 0 && !validator.values.includes(item)) throw invalid(name, item, `String must be one of: ${validator.values.join(', ')}`);
      }
      return;
    }
    case 'LambdaValidator': {
      // compression.gzip.level: [1,...,9] or -1 (CompressionType.GZIP's levels).
      const n = Number(parsed);
      if (!(n === -1 || (n >= 1 && n <= 9))) throw invalid(name, value, 'Value must be between 1 and 9 or equal to -1');
      return;
    }
    case 'Validator':
      if (name === 'share.auto.offset.reset') checkShareAutoOffsetReset(name, parsed as string);
      return;
    case 'ThrottledReplicaListValidator': {
      const items = parsed as string[];
      const ok = (items.length === 1 && items[0] === '*') || items.every((i) => /^\d+:\d+$/.test(i));
      // ThrottledReplicaListValidator's ConfigException names the parsed list (Java's List.toString) and the key again.
      if (!ok) throw invalid(name, `[${items.join(', ')}]`, `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`);
      return;
    }
    default:
      return;
  }
}

/**
 * Java's `Duration.parse` of `PnDTnHnMn.nS` (letters in any case, signs on the whole and on each
 * part): the length in seconds, or null when Java refuses the text.
 */
function parseJavaDurationSeconds(text: string): number | null {
  const m = /^([-+]?)P(?:([-+]?\d+)D)?(T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i.exec(text);
  if (!m) return null;
  const [, sign, days, time, hours, minutes, seconds, fraction] = m;
  if (days === undefined && hours === undefined && minutes === undefined && seconds === undefined) return null;
  if (time !== undefined && time.length === 1) return null;
  const secondsPart = Number(seconds ?? 0);
  const fractionPart = fraction ? Number(`0.${fraction}`) * (seconds?.startsWith('-') ? -1 : 1) : 0;
  const total = Number(days ?? 0) * 86400 + Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + secondsPart + fractionPart;
  return sign === '-' ? -total : total;
}

/**
 * `ShareGroupAutoOffsetResetStrategy.Validator`: `earliest`, `latest` (case-sensitive) or
 * `by_duration:` and a Java Duration that is not negative.
 */
function checkShareAutoOffsetReset(name: string, value: string): void {
  if (value === 'earliest' || value === 'latest') return;
  const duration = value.startsWith('by_duration:') ? parseJavaDurationSeconds(value.slice('by_duration:'.length)) : null;
  if (duration !== null && duration >= 0) return;
  throw invalid(name, value, `Invalid value \`${value}\` for configuration ${name}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`);
}

/** Java's `Double.toString` (`NaN`, `Infinity`, `1.0E10`, `0.001`). */
export function javaDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
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
      return JAVA_INTEGER.test(raw.trim()) ? BigInt(raw.trim()).toString() : raw.trim();
    case ConfigType.DOUBLE: {
      const n = parseJavaDouble(raw);
      return n === null ? raw.trim() : javaDouble(n);
    }
    case ConfigType.LIST:
      return raw.split(',').map((s) => s.trim()).filter((s) => s !== '').join(',');
    case ConfigType.BOOLEAN:
      return raw.trim().toLowerCase();
    default:
      return raw.trim();
  }
}
