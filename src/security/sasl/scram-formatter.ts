import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/**
 * SCRAM-SHA-256/512 (RFC 5802, RFC 7677) arithmetic as Kafka's `ScramFormatter`, on Node's crypto:
 * Hi is PBKDF2 with HMAC-H and the hash's output length, which is what Kafka's hand loop computes.
 */
export interface ScramMechanismInfo {
  /** `SCRAM-SHA-256` or `SCRAM-SHA-512`. */
  readonly name: 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
  /** `ScramMechanism.type()`: 1 or 2 (AlterUserScramCredentials and DescribeUserScramCredentials carry it). */
  readonly type: 1 | 2;
  readonly hash: 'sha256' | 'sha512';
  readonly minIterations: number;
  readonly maxIterations: number;
}

export const SCRAM_MECHANISMS: readonly ScramMechanismInfo[] = [
  { name: 'SCRAM-SHA-256', type: 1, hash: 'sha256', minIterations: 4096, maxIterations: 16384 },
  { name: 'SCRAM-SHA-512', type: 2, hash: 'sha512', minIterations: 4096, maxIterations: 16384 },
];

export function scramMechanism(name: string): ScramMechanismInfo | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismOfType(type: number): ScramMechanismInfo | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

/** What the broker keeps per user and mechanism (Kafka's `ScramCredential`, `UserScramCredentialRecord`). */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

export function hmac(m: ScramMechanismInfo, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(m.hash, key).update(data).digest();
}

export function hash(m: ScramMechanismInfo, data: Buffer): Buffer {
  return createHash(m.hash).update(data).digest();
}

export function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new Error('Argument arrays must be of the same length');
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

export function saltedPassword(m: ScramMechanismInfo, password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.hash === 'sha256' ? 32 : 64, m.hash);
}

/** storedKey = H(HMAC(saltedPassword, "Client Key")), serverKey = HMAC(saltedPassword, "Server Key"). */
export function credentialFromSaltedPassword(m: ScramMechanismInfo, salt: Buffer, salted: Buffer, iterations: number): ScramCredential {
  return {
    salt,
    storedKey: hash(m, hmac(m, salted, 'Client Key')),
    serverKey: hmac(m, salted, 'Server Key'),
    iterations,
  };
}

/** Kafka's `ScramFormatter.secureRandomString`: 130 random bits in base 36. */
export function secureRandomString(): string {
  return (BigInt(`0x${randomBytes(17).toString('hex')}`) >> 6n).toString(36);
}

/** A new credential for `password`, salted as Kafka salts (the bytes of a random base-36 string). */
export function generateCredential(m: ScramMechanismInfo, password: string, iterations: number): ScramCredential {
  const salt = Buffer.from(secureRandomString(), 'utf8');
  return credentialFromSaltedPassword(m, salt, saltedPassword(m, password, salt, iterations), iterations);
}
