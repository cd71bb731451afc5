import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslCredentialError, type SaslServerSession } from './mechanism.js';
import { javaHashMapOrder, javaHashOrder, javaStringHashCode } from '../../util/java-hash.js';
import { hash, hmac, secureRandomString, xor, type ScramCredential, type ScramMechanismInfo } from './scram-formatter.js';

// The message grammars of Kafka's `ScramMessages` (Java character classes spelled out for JavaScript).
const ALPHA = '[A-Za-z]+';
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const BASE64_CHAR = '[a-zA-Z0-9/+]';
const BASE64 = `(?:${BASE64_CHAR}{4})*(?:${BASE64_CHAR}{3}=|${BASE64_CHAR}{2}==)?`;
const RESERVED = `(?:m=${VALUE},)?`;
const EXTENSIONS = `(?:,${ALPHA}=${VALUE})*`;
const CLIENT_FIRST = new RegExp(`^n,(?:a=(?<authzid>${SASLNAME}))?,${RESERVED}n=(?<saslname>${SASLNAME}),r=(?<nonce>${PRINTABLE})(?<extensions>${EXTENSIONS})$`);
const CLIENT_FINAL = new RegExp(`^c=(?<channel>${BASE64}),r=(?<nonce>${PRINTABLE})${EXTENSIONS},p=(?<proof>${BASE64})$`);

/** Kafka's `ScramFormatter.username`: `=2C` is a comma, `=3D` an equals sign, any other `=` is refused. */
export function scramUsername(saslName: string): string {
  const commas = saslName.replaceAll('=2C', ',');
  if (commas.replaceAll('=3D', '').includes('=')) throw new Error(`Invalid username: ${saslName}`);
  return commas.replaceAll('=3D', '=');
}

/**
 * The client-first extensions as Kafka's `ScramExtensions` holds them: `Utils.parseMap(s, "=", ",")`
 * puts each `key=value` into a `HashMap` (a repeated key: the last value wins), and
 * `SaslExtensions` copies it into a new `HashMap`, whose iteration order
 * `ClientFirstMessage.clientFirstMessageBare` writes them back in.
 */
function scramExtensions(extensions: string): Map<string, string> {
  const parsed = new Map<string, string>();
  for (const pair of extensions.split(',').slice(1)) {
    const eq = pair.indexOf('=');
    parsed.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
  if (parsed.size < 2) return parsed;
  // `new HashMap<>(map)` (Java 21) sizes its table for the map: ceil(size / 0.75), a power of two;
  // it is filled in the parsed map's order (a default-sized HashMap).
  let capacity = 1;
  while (capacity < Math.ceil(parsed.size / 0.75)) capacity *= 2;
  const order = javaHashOrder(javaHashMapOrder([...parsed.keys()], javaStringHashCode), javaStringHashCode, capacity);
  return new Map(order.map((k) => [k, parsed.get(k)!]));
}

/**
 * Kafka's `ScramExtensions.tokenAuthenticated`: the client-first extension `tokenauth` (its last
 * value) is true (Java's `Boolean.parseBoolean`: "true" in any case). Other extensions are
 * ignored, as Kafka ignores them (it logs them at debug).
 */
function tokenAuthenticated(extensions: Map<string, string>): boolean {
  return extensions.get('tokenauth')?.toLowerCase() === 'true';
}

/**
 * Kafka's `ClientFirstMessage.clientFirstMessageBare`, the first part of the signed auth message:
 * rebuilt from the parsed extensions (once each, in HashMap order), not the bytes the client sent.
 */
function clientFirstMessageBare(saslName: string, nonce: string, extensions: Map<string, string>): string {
  const written = [...extensions].map(([k, v]) => `${k}=${v}`).join(',');
  return written === '' ? `n=${saslName},r=${nonce}` : `n=${saslName},r=${nonce},${written}`;
}

type State = 'first' | 'final' | 'complete' | 'failed';

/**
 * SCRAM-SHA-256/512 server as Kafka's `ScramSaslServer`: client-first (gs2 header `n`, optional
 * authzid, extensions: `tokenauth=true` fails, no delegation tokens here; others ignored), server-first with the stored salt and iterations and a
 * random nonce, client-final checked against the stored key, server-final with the server
 * signature. An unknown user or a wrong proof is a SaslCredentialError, so the client sees Kafka's
 * generic "invalid credentials" message; an authzid other than the user is a SaslAuthenticationError.
 */
export class ScramServer implements SaslServerSession {
  readonly mechanism: string;
  authorizationId = '';
  private state: State = 'first';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private credential: ScramCredential | undefined;

  constructor(
    private readonly info: ScramMechanismInfo,
    private readonly lookup: (user: string) => ScramCredential | undefined,
  ) {
    this.mechanism = info.name;
  }

  get complete(): boolean {
    return this.state === 'complete';
  }

  evaluate(token: Buffer): Buffer {
    try {
      if (this.state === 'first') return this.first(token.toString('utf8'));
      if (this.state === 'final') return this.final(token.toString('utf8'));
      throw new SaslAuthenticationError(`Unexpected challenge in Sasl server state ${this.state === 'complete' ? 'COMPLETE' : 'FAILED'}`);
    } catch (err) {
      this.state = 'failed';
      this.credential = undefined;
      throw err;
    }
  }

  private first(message: string): Buffer {
    const m = CLIENT_FIRST.exec(message);
    if (!m) throw new SaslCredentialError(`Invalid SCRAM client first message format: ${message}`);
    const { authzid = '', saslname, nonce } = m.groups!;
    const extensions = scramExtensions(m.groups!['extensions']!);
    let username: string;
    try {
      username = scramUsername(saslname!);
      // `tokenauth=true` asks for a delegation token whose id is the user name (KIP-48); this
      // server issues none, so it fails as Kafka's does for an unknown token id, never falling
      // back to the user's own SCRAM credential.
      if (tokenAuthenticated(extensions)) throw new SaslCredentialError(`Token Authentication failed: Invalid tokenId : ${username}`);
      this.credential = this.lookup(username);
    } catch (err) {
      if (err instanceof SaslCredentialError) throw err;
      throw new SaslCredentialError(`Authentication failed: Credentials could not be obtained (${(err as Error).message})`);
    }
    if (!this.credential) throw new SaslCredentialError('Authentication failed: Invalid user credentials');
    if (authzid !== '' && authzid !== username) throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    if (this.credential.iterations < this.info.minIterations) {
      throw new SaslCredentialError(`Iterations ${this.credential.iterations} is less than the minimum ${this.info.minIterations} for ${this.info.name}`);
    }
    this.authorizationId = username;
    this.clientFirstBare = clientFirstMessageBare(saslname!, nonce!, extensions);
    this.nonce = nonce + secureRandomString();
    this.serverFirst = `r=${this.nonce},s=${this.credential.salt.toString('base64')},i=${this.credential.iterations}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private final(message: string): Buffer {
    const m = CLIENT_FINAL.exec(message);
    if (!m) throw new SaslCredentialError(`Invalid SCRAM client final message format: ${message}`);
    const { channel, nonce, proof } = m.groups!;
    if (!nonce!.endsWith(this.nonce)) throw new SaslCredentialError('Invalid client nonce in the final client message.');
    const credential = this.credential!;
    const withoutProof = `c=${Buffer.from(channel!, 'base64').toString('base64')},r=${nonce}`;
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.info, credential.storedKey, authMessage);
    // A proof of the wrong length is not a SaslException in Kafka (xor throws): the connection just closes.
    const computedStoredKey = hash(this.info, xor(clientSignature, Buffer.from(proof!, 'base64')));
    if (!timingSafeEqual(computedStoredKey, credential.storedKey)) throw new SaslCredentialError('Invalid client credentials');
    const serverSignature = hmac(this.info, credential.serverKey, authMessage);
    this.credential = undefined;
    this.state = 'complete';
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
