import type { X509Certificate } from 'node:crypto';
import { ConfigError } from '../config.js';

/**
 * Kafka's `ssl.principal.mapping.rules` (`SslPrincipalMapper`): a comma-separated list of `DEFAULT`
 * (the distinguished name as it is) and `RULE:<pattern>/<replacement>/[L|U]` (when the whole name
 * matches `pattern`, every match is replaced by `replacement`, with `$1`... back references, then
 * optionally lower- or upper-cased). The first rule that applies names the principal `User:<name>`.
 */
export class SslPrincipalMapper {
  private readonly rules: Array<{ pattern: RegExp | null; replacement: string; lower: boolean; upper: boolean }> = [];

  constructor(text: string, key = 'ssl.principal.mapping.rules') {
    const splitter = /\s*((DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?).*?|(.*?))\s*(?:,\s*|$)/gy;
    const source = text.trim();
    let m: RegExpExecArray | null;
    while (splitter.lastIndex < source.length && (m = splitter.exec(source)) !== null) {
      const rule = m[1]!;
      if (m[2] !== undefined) {
        this.rules.push({ pattern: null, replacement: '', lower: false, upper: false });
      } else if (m[3] !== undefined) {
        let pattern: RegExp;
        try {
          pattern = new RegExp(`^(?:${m[3]})$`);
        } catch (err) {
          throw new ConfigError(key, `Invalid rule: ${rule} (${(err as Error).message})`);
        }
        this.rules.push({ pattern, replacement: m[4]!, lower: m[5] === 'L', upper: m[5] === 'U' });
      } else if (rule !== '') {
        throw new ConfigError(key, `Invalid rule: ${rule}`);
      }
      if (m[0] === '') break;
    }
  }

  /** The principal name for a distinguished name (RFC 2253), or null when no rule applies (Kafka then refuses the connection). */
  name(distinguishedName: string): string | null {
    for (const r of this.rules) {
      if (r.pattern === null) return distinguishedName;
      if (!r.pattern.test(distinguishedName)) continue;
      const global = new RegExp(r.pattern.source.slice(4, -2), 'g');
      const result = distinguishedName.replace(global, r.replacement);
      return r.lower ? result.toLowerCase() : r.upper ? result.toUpperCase() : result;
    }
    return null;
  }
}

/** The attribute names Java's `X500Principal.getName()` (RFC 2253) prints as keywords; others become OIDs. */
const RFC2253_KEYWORDS = new Set(['CN', 'C', 'L', 'ST', 'O', 'OU', 'STREET', 'DC', 'UID']);
const OIDS: Readonly<Record<string, { oid: string; tag: number }>> = {
  emailAddress: { oid: '1.2.840.113549.1.9.1', tag: 0x16 },
  serialNumber: { oid: '2.5.4.5', tag: 0x13 },
};

/**
 * A certificate's subject as Java's `X500Principal.getName()` writes it (RFC 2253): last RDN first,
 * `,` between them, special characters escaped with `\`; attributes without an RFC 2253 keyword as
 * `<oid>=#<DER hex>` (`emailAddress` is `1.2.840.113549.1.9.1=#16...`).
 */
export function rfc2253Subject(cert: X509Certificate): string {
  // Node prints one `name=value` per line, first RDN first, with RFC 2253 escapes already applied.
  return cert.subject
    .split('\n')
    .filter((line) => line !== '')
    .reverse()
    .map((line) => {
      const eq = line.indexOf('=');
      const name = line.slice(0, eq);
      if (RFC2253_KEYWORDS.has(name)) return line;
      const known = OIDS[name];
      if (!known) return line;
      const value = Buffer.from(line.slice(eq + 1).replace(/\\(.)/g, '$1'), 'utf8');
      return `${known.oid}=#${Buffer.concat([Buffer.from([known.tag, value.length]), value]).toString('hex')}`;
    })
    .join(',');
}
