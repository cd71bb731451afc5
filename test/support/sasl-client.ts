/**
 * The client side of SASL for raw-protocol tests: SaslHandshake + SaslAuthenticate with PLAIN or
 * SCRAM-SHA-256/512 (RFC 5802, on Node's crypto), over a RawClient.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { RawClient } from './raw-client.js';

export type Mechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';

export interface SaslCredentials {
  mechanism: Mechanism;
  username: string;
  password: string;
}

/** A SCRAM client conversation: `first()`, then `final(serverFirst)`, then `verify(serverFinal)`. */
export class ScramClient {
  private readonly nonce = randomBytes(18).toString('base64url');
  private bare = '';
  private authMessage = '';
  private saltedPassword = Buffer.alloc(0);

  /**
   * `extensions` (",k=v,...") go after the nonce of the client-first message; `signedExtensions`,
   * when given, replace them in the client-first-bare the proof signs (to sign what a server
   * rebuilds from them rather than the bytes sent).
   */
  constructor(
    private readonly mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512',
    private readonly username: string,
    private readonly password: string,
    private readonly extensions = '',
    private readonly signedExtensions = extensions,
  ) {}

  private get algorithm(): 'sha256' | 'sha512' {
    return this.mechanism === 'SCRAM-SHA-256' ? 'sha256' : 'sha512';
  }

  first(): Buffer {
    const start = `n=${this.username.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${this.nonce}`;
    this.bare = `${start}${this.signedExtensions}`;
    return Buffer.from(`n,,${start}${this.extensions}`);
  }

  final(serverFirst: Buffer): Buffer {
    const text = serverFirst.toString();
    const fields = new Map(text.split(',').map((f) => [f[0]!, f.slice(2)]));
    const nonce = fields.get('r')!;
    if (!nonce.startsWith(this.nonce)) throw new Error(`server nonce ${nonce} does not extend ours`);
    const salt = Buffer.from(fields.get('s')!, 'base64');
    const iterations = Number(fields.get('i'));
    this.saltedPassword = pbkdf2Sync(this.password, salt, iterations, this.algorithm === 'sha256' ? 32 : 64, this.algorithm);
    const withoutProof = `c=${Buffer.from('n,,').toString('base64')},r=${nonce}`;
    this.authMessage = `${this.bare},${text},${withoutProof}`;
    const clientKey = createHmac(this.algorithm, this.saltedPassword).update('Client Key').digest();
    const storedKey = createHash(this.algorithm).update(clientKey).digest();
    const signature = createHmac(this.algorithm, storedKey).update(this.authMessage).digest();
    const proof = Buffer.from(clientKey.map((b, i) => b ^ signature[i]!));
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`);
  }

  /** Checks the server's signature (`v=...`). */
  verify(serverFinal: Buffer): boolean {
    const serverKey = createHmac(this.algorithm, this.saltedPassword).update('Server Key').digest();
    const expected = createHmac(this.algorithm, serverKey).update(this.authMessage).digest();
    return serverFinal.toString() === `v=${expected.toString('base64')}`;
  }
}

export function plainToken(username: string, password: string, authzid = ''): Buffer {
  return Buffer.from(`${authzid}\u0000${username}\u0000${password}`);
}

/**
 * Authenticates `c` (SaslHandshake v1, SaslAuthenticate at `authVersion`); resolves with every
 * SaslAuthenticate answer. Throws on a handshake or authentication error.
 */
export async function authenticate(c: RawClient, creds: SaslCredentials, authVersion = 2) {
  const hs = await c.send(17, 1, { mechanism: creds.mechanism });
  if (hs.errorCode !== 0) throw new Error(`SaslHandshake error ${hs.errorCode} (mechanisms ${hs.mechanisms.join(',')})`);
  const answers: Array<Awaited<ReturnType<typeof c.send<36>>>> = [];
  const step = async (token: Buffer) => {
    const r = await c.send(36, authVersion, { authBytes: token });
    answers.push(r);
    if (r.errorCode !== 0) throw new Error(`SaslAuthenticate error ${r.errorCode}: ${r.errorMessage}`);
    return r;
  };
  if (creds.mechanism === 'PLAIN') {
    await step(plainToken(creds.username, creds.password));
  } else {
    const scram = new ScramClient(creds.mechanism, creds.username, creds.password);
    const first = await step(scram.first());
    const last = await step(scram.final(first.authBytes));
    if (!scram.verify(last.authBytes)) throw new Error('the server signature does not verify');
  }
  return answers;
}

/** Connects and authenticates. */
export async function connectSasl(port: number, creds: SaslCredentials, host = '127.0.0.1'): Promise<RawClient> {
  const c = await RawClient.connect(port, host);
  try {
    await authenticate(c, creds);
  } catch (err) {
    c.close();
    throw err;
  }
  return c;
}

/** `listener.name.<l>.plain.sasl.jaas.config` with these users (Kafka's syntax). */
export function plainJaas(users: Record<string, string>): string {
  return `org.apache.kafka.common.security.plain.PlainLoginModule required ${Object.entries(users).map(([u, p]) => `user_${u}="${p}"`).join(' ')};`;
}

export const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
