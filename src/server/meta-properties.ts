import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A new Kafka-style id: 16 random bytes in base64url text (Kafka's `Uuid.randomUuid().toString()`). */
export function randomKafkaUuid(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Reads or creates `<data-dir>/meta.properties` (the file `kafka-storage.sh format` writes) so the
 * cluster id stays the same across restarts on one data directory (made ready by
 * `prepareDataDirectory`).
 */
export function loadOrCreateClusterId(dataDir: string, nodeId: number): string {
  const path = join(dataDir, 'meta.properties');
  if (existsSync(path)) {
    const match = /^cluster\.id=(.+)$/m.exec(readFileSync(path, 'utf8'));
    if (match) return match[1]!.trim();
  }
  const clusterId = randomKafkaUuid();
  writeFileSync(path, `#\n#kafka-mock-coordinator\nnode.id=${nodeId}\nversion=1\ncluster.id=${clusterId}\n`);
  return clusterId;
}
