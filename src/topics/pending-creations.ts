/**
 * Atomic topic and partition creation across crashes. Kafka creates a topic (or adds partitions) in
 * one metadata record, so a broker sees all of it or none of it. Here the partitions are directories
 * made one by one, so before the first one a marker, `<data-dir>/kmc-pending-creation.<topic id>.<from>`
 * (ours; one per creation, as creations may overlap), names it ("<topic id> <from partition> <topic>"),
 * written durably; it is removed once the
 * directories and the topic's configs are durable, before the topic can be seen. A start that finds
 * a marker (the process died in between, or the creation failed and could not clean up) deletes
 * what that creation made (the directories of partitions >= from holding that topic id, and for a
 * new topic its configs) before loading topics, so no partial topic or partition comes back.
 * A topic deletion done in slices (`TopicStore.deleteInSlices`) writes the same marker with
 * `from` 0 before its first slice: a start after a crash in between finishes the deletion.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Logger } from 'pino';
import { fsyncDirectory, fsyncDirectorySync, writeFileDurably, writeFileDurablySync } from '../storage/file-io.js';
import { readPartitionMetadata } from './topic-id.js';

export const PENDING_CREATION_PREFIX = 'kmc-pending-creation.';

export interface PendingCreation {
  topicId: string;
  topic: string;
  /** First partition the creation makes (0: a new topic). */
  from: number;
}

/** Writes the creation's marker durably and returns its path (throws on failure: nothing was created yet). */
export function markCreation(dataDir: string, creation: PendingCreation): string {
  const file = markerPath(dataDir, creation);
  writeFileDurablySync(file, markerText(creation));
  return file;
}

/**
 * `markCreation` with its syncs on the thread pool: a CreateTopics or CreatePartitions waits for
 * them without holding the event loop (an fsync of a busy disk takes tens or hundreds of ms: issue #16).
 */
export async function markCreationDurably(dataDir: string, creation: PendingCreation): Promise<string> {
  const file = markerPath(dataDir, creation);
  await writeFileDurably(file, markerText(creation));
  return file;
}

const markerPath = (dataDir: string, creation: PendingCreation): string => path.join(dataDir, `${PENDING_CREATION_PREFIX}${creation.topicId}.${creation.from}`);
const markerText = (creation: PendingCreation): string => `${creation.topicId} ${creation.from} ${creation.topic}\n`;

/** The creation is complete: its directories are made durable (data directory fsync), then the marker goes. Throws on failure. */
export function commitCreation(marker: string): void {
  const dataDir = path.dirname(marker);
  fsyncDirectorySync(dataDir);
  fs.rmSync(marker, { force: true });
  fsyncDirectorySync(dataDir);
}

/** `commitCreation` with its syncs on the thread pool (see `markCreationDurably`). */
export async function commitCreationDurably(marker: string): Promise<void> {
  const dataDir = path.dirname(marker);
  await fsyncDirectory(dataDir);
  await fs.promises.rm(marker, { force: true });
  await fsyncDirectory(dataDir);
}

/**
 * Deletes the partition directories `[from, to)` of a failed creation by name (a directory whose
 * partition.metadata was not written yet is not in the caller's list of opened partitions), then
 * the marker. Failures are left for the next start (the marker stays).
 */
export function undoCreation(marker: string, creation: PendingCreation, to: number, log: Logger): void {
  try {
    for (let p = creation.from; p < to; p++) fs.rmSync(path.join(path.dirname(marker), `${creation.topic}-${p}`), { recursive: true, force: true });
    commitCreation(marker);
  } catch (err) {
    log.error({ err, topic: creation.topic }, 'could not undo a failed creation; the next start completes it');
  }
}

/**
 * At start, before topics load: undoes the creations markers name. `forgetConfigs` drops a new
 * topic's configs. Returns the creations undone.
 */
export function recoverPendingCreations(dataDir: string, forgetConfigs: (topicId: string) => void, log: Logger): PendingCreation[] {
  const undone: PendingCreation[] = [];
  for (const marker of fs.readdirSync(dataDir).filter((n) => n.startsWith(PENDING_CREATION_PREFIX))) {
    const file = path.join(dataDir, marker);
    const m = /^(\S+) (\d+) (.+)\n$/.exec(fs.readFileSync(file, 'utf8'));
    if (m) {
      const creation: PendingCreation = { topicId: m[1]!, from: Number(m[2]), topic: m[3]! };
      const prefix = `${creation.topic}-`;
      for (const name of fs.readdirSync(dataDir)) {
        const index = name.startsWith(prefix) ? name.slice(prefix.length) : '';
        if (!/^\d+$/.test(index) || Number(index) < creation.from) continue;
        const dir = path.join(dataDir, name);
        const id = readPartitionMetadata(dir);
        if (id === null || id === creation.topicId) fs.rmSync(dir, { recursive: true, force: true });
      }
      if (creation.from === 0) forgetConfigs(creation.topicId);
      log.warn({ topic: creation.topic, topicId: creation.topicId, from: creation.from }, 'removed the partitions of a topic creation (or deletion) that did not complete');
      undone.push(creation);
    }
    commitCreation(file);
  }
  return undone;
}
