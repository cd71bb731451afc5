/**
 * Topic ids: random 16-byte UUIDs (Kafka's `Uuid.randomUuid`) in Kafka's base64url text
 * form, kept stable across restarts in each partition directory's `partition.metadata`
 * file (Kafka's `PartitionMetadataFile`: "version: 0\ntopic_id: <id>\n").
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { ZERO_UUID } from '../protocol/primitives.js';

export const PARTITION_METADATA_FILE = 'partition.metadata';

/** A new random topic id, never the zero UUID nor one that starts with '-' (Kafka avoids both). */
export function newTopicId(): string {
  for (;;) {
    const bytes = randomBytes(16);
    // Version 4, IETF variant, as java.util.UUID.randomUUID.
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const id = bytes.toString('base64url');
    if (id !== ZERO_UUID && !id.startsWith('-')) return id;
  }
}

/** Writes `partition.metadata` into `dir` (via a temp file and rename). */
export function writePartitionMetadata(dir: string, topicId: string): void {
  const file = path.join(dir, PARTITION_METADATA_FILE);
  const tmp = `${file}.tmp`;
  try {
    fs.writeFileSync(tmp, `version: 0\ntopic_id: ${topicId}\n`);
  } catch (err) {
    // A write that failed (a full disk) leaves no temporary file behind.
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  fs.renameSync(tmp, file);
}

/** The topic id in `dir`'s `partition.metadata`, or null if the file is missing or unreadable. */
export function readPartitionMetadata(dir: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, PARTITION_METADATA_FILE), 'utf8');
  } catch {
    return null;
  }
  const version = /^version:\s*(\d+)\s*$/m.exec(text);
  const id = /^topic_id:\s*(\S+)\s*$/m.exec(text);
  if (!version || version[1] !== '0' || !id) return null;
  return Buffer.from(id[1]!, 'base64url').length === 16 ? id[1]! : null;
}

/**
 * The topic id kept in the `partition.metadata` of any of `dirs` (the first readable one), or a
 * new one; either way written to every directory that lacks it. For a topic whose partition logs
 * are opened elsewhere (`__consumer_offsets`, owned by the group coordinator). Null entries (in
 * memory) are skipped.
 */
export function loadOrCreateTopicId(dirs: ReadonlyArray<string | null>): string {
  const onDisk = dirs.filter((d): d is string => d !== null);
  // Each file read once: a fresh data directory has 50 of them for `__consumer_offsets` alone.
  const found = onDisk.map(readPartitionMetadata);
  const id = found.find((f): f is string => f !== null) ?? newTopicId();
  onDisk.forEach((dir, i) => {
    if (found[i] !== id) writePartitionMetadata(dir, id);
  });
  return id;
}
