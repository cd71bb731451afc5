/**
 * Kafka's offset checkpoint files (`CheckpointFile` with `OffsetCheckpointFile`'s formatter), such as
 * `<log dir>/log-start-offset-checkpoint`: a version line (0), a count line, then one
 * `<topic> <partition> <offset>` line per entry. Written through a temporary file that is synced and
 * renamed over the old one, then the directory is synced, so a crash leaves the old or the new file.
 */
import * as fs from 'node:fs';
import { writeFileDurably } from './file-io.js';

/** Kafka's file name for the log start offsets of a log directory (`LogManager.LOG_START_OFFSET_CHECKPOINT_FILE`). */
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';

export interface CheckpointEntry {
  topic: string;
  partition: number;
  offset: bigint;
}

/** A checkpoint file that cannot be read (Kafka's "Malformed line in checkpoint file"). */
export class CheckpointFileError extends Error {}

/** The entries of `file`; [] when it does not exist. Throws CheckpointFileError for a malformed file. */
export function readOffsetCheckpoint(file: string): CheckpointEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const malformed = (why: string) => new CheckpointFileError(`Malformed checkpoint file ${file}: ${why}`);
  if (lines[0] !== '0') throw malformed(`unrecognized version ${lines[0] ?? '(empty)'}`);
  const count = Number(lines[1]);
  if (!Number.isInteger(count) || count !== lines.length - 2) throw malformed(`expected ${lines[1]} entries, found ${lines.length - 2}`);
  return lines.slice(2).map((line) => {
    const m = /^(\S+) (\d+) (-?\d+)$/.exec(line);
    if (!m) throw malformed(`line "${line}"`);
    return { topic: m[1]!, partition: Number(m[2]), offset: BigInt(m[3]!) };
  });
}

/** Replaces `file` with `entries`, durably (temporary file, fdatasync, rename, directory fsync). */
export async function writeOffsetCheckpoint(file: string, entries: readonly CheckpointEntry[]): Promise<void> {
  const text = ['0', String(entries.length), ...entries.map((e) => `${e.topic} ${e.partition} ${e.offset}`)].join('\n') + '\n';
  await writeFileDurably(file, text);
}
