import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileDurablySync } from '../storage/file-io.js';

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
    const clusterId = match?.[1]?.trim();
    // Kafka refuses a log directory whose meta.properties lacks cluster.id (MetaProperties): a new
    // id on a directory holding data would silently make it another cluster's.
    if (!clusterId) throw new Error(`${path} has no cluster.id: it is damaged; restore it (cluster.id=<id>) or remove it to start as a new cluster`);
    return clusterId;
  }
  const clusterId = randomKafkaUuid();
  // Durable (temp file, fdatasync, rename, directory sync): a power loss must not leave it empty beside synced logs.
  writeFileDurablySync(path, `#\n#kafka-mock-coordinator\nnode.id=${nodeId}\nversion=1\ncluster.id=${clusterId}\n`);
  return clusterId;
}
