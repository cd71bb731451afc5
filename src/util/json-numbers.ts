/**
 * Number literals of a JSON text that `JSON.parse` cannot hold exactly: beyond
 * `Number.MAX_SAFE_INTEGER` in magnitude. `99999999999999999999` parses as 1e20 (an answer then
 * says "got 100000000000000000000", not what was sent) and `1e400` as Infinity (which
 * `JSON.stringify` writes as null). Node 20's `JSON.parse` gives a reviver no source text, so the
 * text is read here, for the literal as written and the path of its field.
 */

/** A number literal out of range, as written, and where: `action.ms`, `match.partitions[0]`; '' for the whole text. */
export interface OutOfRangeNumber {
  path: string;
  literal: string;
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The index just past the string literal that opens at `start` (a '"'). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * How deep a JSON text the admin API takes: its deepest body (a fault rule) nests 4 levels. Deeper
 * is refused before `JSON.parse`, which with the walk above took 150-320 ms of CPU for a 1 MB body
 * of nested arrays (adversarial trial 17: a loop of them held the Kafka port 1.2-2.9 s per request).
 */
export const MAX_JSON_NESTING = 64;

/** Whether `text` opens more than `max` arrays or objects inside one another (strings skipped; any text, valid or not). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, skipping escaped characters.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** The first number literal of `text` (valid JSON: call after `JSON.parse` took it) beyond ±2^53 - 1, or null. */
export function firstOutOfRangeNumber(text: string): OutOfRangeNumber | null {
  /** The open containers, each with the key (object) or index (array) being read in it. */
  const open: Array<{ array: boolean; at: string | number }> = [];
  let expectKey = false;
  const path = () => open.map((c, i) => (c.array ? `[${c.at}]` : i === 0 ? String(c.at) : `.${String(c.at)}`)).join('');
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '"') {
      const end = stringEnd(text, i);
      if (expectKey) open.at(-1)!.at = JSON.parse(text.slice(i, end)) as string;
      expectKey = false;
      i = end;
    } else if (c === '{' || c === '[') {
      open.push({ array: c === '[', at: c === '[' ? 0 : '' });
      expectKey = c === '{';
      i++;
    } else if (c === '}' || c === ']') {
      open.pop();
      i++;
    } else if (c === ',') {
      const top = open.at(-1)!;
      if (top.array) top.at = (top.at as number) + 1;
      else expectKey = true;
      i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)![0];
      if (!(Math.abs(Number(literal)) <= Number.MAX_SAFE_INTEGER)) return { path: path(), literal };
      i += literal.length;
    } else {
      i++; // white space, ':', true, false, null
    }
  }
  return null;
}

/** The refusal of a number out of range: the field, the literal as written, and why. */
export function outOfRangeMessage({ path, literal }: OutOfRangeNumber, whole: string): string {
  return `${path === '' ? whole : path} is out of range: ${literal} (no field takes a number beyond ±${Number.MAX_SAFE_INTEGER}, the most a JSON number holds exactly)`;
}
