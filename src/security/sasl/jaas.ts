/**
 * Kafka's `sasl.jaas.config` syntax (`org.apache.kafka.common.security.JaasConfig`):
 * `<LoginModule class> <flag> key="value" key2=value2;`, tokenised as Java's `StreamTokenizer` with
 * Kafka's settings: words of letters, digits, `.`, `-`, `_`, `$`; values in double or single quotes
 * with backslash escapes; `//` and `/* *\/` comments. A listener's `<mechanism>.sasl.jaas.config`
 * must hold exactly one login module (`JaasContext.load`).
 */

export interface JaasEntry {
  readonly loginModule: string;
  readonly flag: 'required' | 'requisite' | 'sufficient' | 'optional';
  readonly options: ReadonlyMap<string, string>;
}

/** A JAAS text Kafka refuses; the message is Kafka's. */
export class JaasConfigError extends Error {}

type Token = { kind: 'word' | 'quoted' | 'number'; text: string } | { kind: 'char'; text: string };

const WORD_START = /[A-Za-z_$\u00a0-\u00ff]/;
const WORD_PART = /[A-Za-z0-9_$.\-\u00a0-\u00ff]/;

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c <= ' ') {
      i++;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (c === '"' || c === "'") {
      let value = '';
      i++;
      while (i < text.length && text[i] !== c && text[i] !== '\n') {
        if (text[i] === '\\' && i + 1 < text.length) {
          const e = text[i + 1]!;
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === 'b' ? '\b' : e === 'f' ? '\f' : e;
          i += 2;
        } else {
          value += text[i++];
        }
      }
      i++;
      out.push({ kind: 'quoted', text: value });
    } else if (WORD_START.test(c)) {
      const start = i;
      while (i < text.length && WORD_PART.test(text[i]!)) i++;
      out.push({ kind: 'word', text: text.slice(start, i) });
    } else if (/[0-9.]/.test(c)) {
      const start = i;
      while (i < text.length && /[0-9.]/.test(text[i]!)) i++;
      out.push({ kind: 'number', text: text.slice(start, i) });
    } else {
      out.push({ kind: 'char', text: c });
      i++;
    }
  }
  return out;
}

const FLAGS = ['required', 'requisite', 'sufficient', 'optional'] as const;

/** Parses every entry of a JAAS text; throws JaasConfigError with Kafka's message. */
export function parseJaasConfig(text: string): JaasEntry[] {
  const tokens = tokenize(text);
  const entries: JaasEntry[] = [];
  let i = 0;
  const sval = (t: Token | undefined): string | null => (t && (t.kind === 'word' || t.kind === 'quoted') ? t.text : null);
  while (i < tokens.length) {
    const loginModule = sval(tokens[i++]) ?? '';
    if (i >= tokens.length) throw new JaasConfigError('Login module control flag not specified in JAAS config');
    const flagText = sval(tokens[i++]);
    if (flagText === null) throw new JaasConfigError('Login module control flag is not available in the JAAS config');
    const flag = FLAGS.find((f) => f === flagText.toLowerCase());
    if (!flag) throw new JaasConfigError(`Invalid login module control flag '${flagText}' in JAAS config`);
    const options = new Map<string, string>();
    let terminated = false;
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if (t.kind === 'char' && t.text === ';') {
        terminated = true;
        break;
      }
      const key = sval(t) ?? 'null';
      const eq = tokens[i++];
      const value = sval(tokens[i++]);
      if (!eq || eq.kind !== 'char' || eq.text !== '=' || value === null) throw new JaasConfigError(`Value not specified for key '${key}' in JAAS config`);
      options.set(key, value);
    }
    if (!terminated) throw new JaasConfigError('JAAS config entry not terminated by semi-colon');
    entries.push({ loginModule, flag, options });
  }
  if (entries.length === 0) throw new JaasConfigError('Login module not specified in JAAS config');
  return entries;
}

/** The one login module of a listener's `<mechanism>.sasl.jaas.config` (`JaasContext.load`). */
export function parseServerJaasConfig(text: string): JaasEntry {
  const entries = parseJaasConfig(text);
  if (entries.length !== 1) throw new JaasConfigError(`JAAS config property contains ${entries.length} login modules, should be 1 module`);
  return entries[0]!;
}
