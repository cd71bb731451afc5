import { join } from 'node:path';
import { SCRAM_MECHANISMS, type ScramCredential, type ScramMechanismInfo } from './sasl/scram-formatter.js';
import { readJsonFile, writeJsonFile } from './json-file.js';

/** The file under the data directory that holds SCRAM credentials (ours: Kafka keeps them in its metadata log). */
export const SCRAM_CREDENTIALS_FILE = 'scram-credentials.json';

interface StoredCredential {
  user: string;
  mechanism: string;
  salt: string;
  storedKey: string;
  serverKey: string;
  iterations: number;
}

/**
 * SCRAM credentials per user and mechanism, as Kafka's `ScramImage` holds them (salt, stored key,
 * server key, iterations; never the password), persisted in `<data-dir>/scram-credentials.json`
 * (replaced whole on every change) where Kafka writes `UserScramCredentialRecord`s to its metadata
 * log. In memory only with `--in-memory`.
 */
export class ScramCredentialStore {
  /** mechanism name -> user -> credential. */
  private readonly byMechanism = new Map<string, Map<string, ScramCredential>>(SCRAM_MECHANISMS.map((m) => [m.name, new Map()]));
  private readonly path: string | null;

  constructor(dataDir: string | null) {
    this.path = dataDir === null ? null : join(dataDir, SCRAM_CREDENTIALS_FILE);
    const doc = this.path === null ? undefined : readJsonFile(this.path);
    for (const c of ((doc as { credentials?: StoredCredential[] } | undefined)?.credentials ?? [])) {
      this.byMechanism.get(c.mechanism)?.set(c.user, {
        salt: Buffer.from(c.salt, 'base64'),
        storedKey: Buffer.from(c.storedKey, 'base64'),
        serverKey: Buffer.from(c.serverKey, 'base64'),
        iterations: c.iterations,
      });
    }
  }

  get(user: string, mechanism: string): ScramCredential | undefined {
    return this.byMechanism.get(mechanism)?.get(user);
  }

  has(user: string, mechanism: ScramMechanismInfo): boolean {
    return this.byMechanism.get(mechanism.name)!.has(user);
  }

  /** Every user with at least one credential. */
  users(): string[] {
    const all = new Set<string>();
    for (const users of this.byMechanism.values()) for (const u of users.keys()) all.add(u);
    return [...all];
  }

  /** The mechanisms (with iterations) a user has credentials for. */
  describe(user: string): Array<{ mechanism: ScramMechanismInfo; iterations: number }> {
    return SCRAM_MECHANISMS.flatMap((m) => {
      const c = this.byMechanism.get(m.name)!.get(user);
      return c ? [{ mechanism: m, iterations: c.iterations }] : [];
    });
  }

  /**
   * Applies removals and upserts together and persists once (AlterUserScramCredentials is atomic
   * in Kafka: `ControllerResult.atomicOf`). The change is durable when this returns.
   */
  apply(changes: { remove?: ReadonlyArray<{ user: string; mechanism: ScramMechanismInfo }>; upsert?: ReadonlyArray<{ user: string; mechanism: ScramMechanismInfo; credential: ScramCredential }> }): void {
    for (const r of changes.remove ?? []) this.byMechanism.get(r.mechanism.name)!.delete(r.user);
    for (const u of changes.upsert ?? []) this.byMechanism.get(u.mechanism.name)!.set(u.user, u.credential);
    this.save();
  }

  private save(): void {
    if (this.path === null) return;
    const credentials: StoredCredential[] = [];
    for (const [mechanism, users] of this.byMechanism) {
      for (const [user, c] of users) {
        credentials.push({ user, mechanism, salt: c.salt.toString('base64'), storedKey: c.storedKey.toString('base64'), serverKey: c.serverKey.toString('base64'), iterations: c.iterations });
      }
    }
    writeJsonFile(this.path, { version: 1, credentials });
  }
}

