import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, type SaslServerSession } from './mechanism.js';

/**
 * SASL/PLAIN (RFC 4616) as Kafka's `PlainSaslServer` with `PlainServerCallbackHandler`: the users
 * are the `user_<name>="<password>"` options of the listener's
 * `listener.name.<listener>.plain.sasl.jaas.config`, and every failure is a
 * SaslAuthenticationError carrying Kafka's message.
 */
export class PlainServer implements SaslServerSession {
  readonly mechanism = 'PLAIN';
  complete = false;
  authorizationId = '';

  constructor(private readonly passwords: ReadonlyMap<string, string>) {}

  evaluate(token: Buffer): Buffer {
    const text = token.toString('utf8');
    const tokens: string[] = [];
    let start = 0;
    for (let i = 0; i < 4; i++) {
      const end = text.indexOf('\u0000', start);
      if (end === -1) {
        tokens.push(text.slice(start));
        break;
      }
      tokens.push(text.slice(start, end));
      start = end + 1;
    }
    if (tokens.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}`);
    const [authzid, username, password] = tokens as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.passwords.get(username);
    if (expected === undefined || !equalConstantTime(password, expected)) throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authzid !== '' && authzid !== username) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    this.authorizationId = username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}

/** Kafka's `Utils.isEqualConstantTime` on the UTF-8 bytes. */
function equalConstantTime(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The PLAIN users of a login module's options: `user_alice="secret"` -> alice: secret. */
export function plainUsers(options: ReadonlyMap<string, string>): Map<string, string> {
  const users = new Map<string, string>();
  for (const [key, value] of options) if (key.startsWith('user_')) users.set(key.slice('user_'.length), value);
  return users;
}
